-- Which models played target, virtual user and judge in a campaign, so
-- that period comparisons can warn when they differ.
ALTER TABLE campaigns ADD COLUMN models TEXT;
