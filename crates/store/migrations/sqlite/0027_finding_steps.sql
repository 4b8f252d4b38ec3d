-- A judge finding may be about one step of its round (a tool call the
-- engine answered): the report links to that step.
ALTER TABLE session_findings ADD COLUMN step INTEGER;
