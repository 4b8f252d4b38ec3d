# Input the platform refuses: what is wrong (naming the field and its
# range) and what to do.

error-plain = { $text }
error-field-range = { $field } must be from { $min } to { $max }, got { $got }

error-period-form = period "{ $period }" is not of the form <number><m|h|d>
error-period-form-suggestion = Write a period such as 30m, 6h or 1d.
error-plan-rounds-and-every = plan entry { $scenario }: give rounds or every, not both
error-plan-rounds-and-every-suggestion = Give either rounds (spread evenly) or every (periodic), not both.
error-plan-rounds-range = plan entry { $scenario }: rounds must be from 1 to { $max }, got { $got }
error-plan-rounds-range-suggestion = Use rounds: 1 or more, or every for periodic runs.
error-plan-every = plan entry { $scenario }: every { $reason }
error-plan-at-needs-every = plan entry { $scenario }: at "{ $at }" needs every (e.g. every: 1d)
error-plan-at-needs-every-suggestion = Give every: 1d with at: HH:MM for a daily run, or leave at out.
error-plan-at-form = plan entry { $scenario }: at "{ $at }" is not a time of day HH:MM
error-plan-at-form-suggestion = Write the time of day as HH:MM, e.g. 09:00.
error-plan-too-many-runs = the plan schedules more than { $max } runs
error-plan-too-many-runs-suggestion = Use fewer rounds, a longer period or a shorter window.

error-budget-max-sessions-suggestion = Use e.g. 8 sessions per window, or leave it out for the default.
error-budget-max-turns-suggestion = Use e.g. 12 user turns per session, or leave it out for the default.
error-budget-interval-suggestion = Use 0 for no interval, or e.g. 30.

seed-kind-persona = persona
seed-kind-goal = goal
error-seed-persona-twice = persona id "{ $id }" appears twice in the seed set
error-seed-persona-twice-suggestion = Give every seed persona a distinct id.
error-seed-persona-no-name = persona "{ $id }" has no name
error-seed-persona-no-name-suggestion = Give every seed persona a name.
error-seed-goal-twice = goal id "{ $id }" appears twice in the seed set
error-seed-goal-twice-suggestion = Give every seed goal a distinct id.
error-seed-goal-no-title = goal "{ $id }" has no title
error-seed-goal-no-title-suggestion = Give every seed goal a title saying what the user wants.
error-seed-slot-blank = goal "{ $id }": a slot name is blank
error-seed-slot-blank-suggestion = Name every slot after the fact it holds, e.g. to, date, order_id.
error-seed-set-too-large = the seed set is larger than 256 KiB
error-seed-set-too-large-suggestion = Keep personas and goals short; describe them, do not paste documents.
error-seed-id-form = { $kind } id "{ $id }" must be 1-64 characters of letters, digits, - _ .
error-seed-id-form-suggestion = Give the { $kind } a short stable id such as { $example }.
error-persona-field-range = persona "{ $id }": { $field } must be from { $min } to { $max }, got { $got }
error-persona-patience-suggestion = Use 1 (gives up quickly) to 5 (very patient), or leave it out for 3.
error-persona-technical-level-suggestion = Use 1 (novice) to 5 (expert), or leave it out for 3.
error-persona-change-mind-suggestion = Use a probability: 0 (never changes its mind) to 1 (always does once).
error-persona-language = persona "{ $id }": language must be zh or en, got "{ $got }"
error-persona-language-suggestion = Use zh for Chinese or en for English, or leave it out to follow the goal's language.

error-target-name = target name must be 1-200 characters
error-target-name-suggestion = Give the target a short, recognisable name.
error-target-concurrency-suggestion = Use the number of requests the target can serve at once.
error-target-rate-suggestion = Give the requests per second the target allows (0.5: one every two seconds), or leave it out for no rate limit.
error-target-timeout-suggestion = Use e.g. 15000 (15 s); slow models may need 60000 or more.
error-target-retries-suggestion = Use e.g. 2 retries.
error-price = { $field } must be a number of 0 or more, got { $got }
error-price-suggestion = Give the price per million tokens, or 0 when it does not matter.
error-url = { $field } must be an http:// or https:// URL, got "{ $got }"
error-url-suggestion = Give the full URL, e.g. http://127.0.0.1:8000/v1

error-campaign-name = campaign name must be 1-200 characters
error-campaign-name-suggestion = Name the campaign after what it evaluates and when, e.g. "support bot, week 48".
error-campaign-target-missing = target_id { $id } names no target
error-campaign-target-missing-suggestion = Create the target first (POST /api/targets) or pick one from GET /api/targets.
error-campaign-target-archived = target { $name } ({ $id }) is archived
error-campaign-target-archived-suggestion = Pick a target in use (GET /api/targets) or create a new one.
error-campaign-time-scale-suggestion = Use 1 for the formal line, or e.g. 168 to run a week in an hour.
error-campaign-ids-and-plan = give either scenario_ids or plan, not both
error-campaign-ids-and-plan-suggestion = Use scenario_ids to run each scenario once, or a plan for rounds and periods.
error-scenario-not-loaded = scenario "{ $id }" is not loaded
error-scenario-not-loaded-suggestion = List the loaded scenarios with GET /api/scenarios and use their ids.
error-campaign-duration = duration_hours must be from { $min } (36 seconds) to { $max } (a year), got { $got }
error-campaign-duration-suggestion = E.g. 168 for a one-week window.
error-campaign-end-and-duration = give either window_end or duration_hours, not both
error-campaign-end-and-duration-suggestion = duration_hours is campaign time; window_end is the real end.
error-campaign-no-window = the campaign needs a window: window_end or duration_hours
error-campaign-no-window-suggestion = E.g. duration_hours: 168 for a one-week window.
error-campaign-window-order = window_end must be after window_start
error-campaign-window-order-suggestion = Check the dates, or use duration_hours.
error-campaign-nothing = the campaign has nothing to evaluate: no scenario, and no persona and goal to explore
error-campaign-nothing-suggestion = Add at least one scenario, or a persona and a goal.

error-body-too-large = the request body is larger than 1 MiB
error-body-too-large-suggestion = Send a smaller body.
error-body-unreadable = the request body could not be read: { $detail }
error-body-unreadable-suggestion = Send a JSON body.
error-body-structure = { $detail }
error-body-structure-suggestion = Check the field named in the message against the API documentation (GET /api/openapi.json).
error-body-not-json = the request body is not valid JSON: { $detail }
error-body-not-json-suggestion = Send a well-formed JSON object.
error-query = the query is not valid: { $detail }
error-query-limit-suggestion = Give limit as a number from 1 to 50, e.g. ?limit=10.
error-query-archived-suggestion = Use include_archived=true or include_archived=false.
error-query-format-suggestion = Give one format, e.g. ?format=md.
error-query-regression-suggestion = Give the turn as a whole number from 1, e.g. ?turn=2.
error-query-compare-suggestion = Name the baseline campaign, e.g. ?with=<campaign id>.
error-query-subject-suggestion = Name the run or session as ?subject_id=<id>.
error-query-pairs-suggestion = Send the parameters as name=value pairs, URL-encoded.
error-unauthorized = missing or wrong API key
error-unauthorized-suggestion = Send the key in the X-API-Key header (see `agenteval serve --api-key` or AGENTEVAL_API_KEY).
error-forbidden-read-only = the key { $name } has the role { $role }, which may only read (GET)
error-forbidden-admin-only = the key { $name } has the role { $role }, which may not manage keys (admin only)
error-forbidden-suggestion = Ask an admin for a key with a role that allows this call (agenteval keys create --role editor).
error-no-route = no such route
error-no-route-suggestion = See GET /api/openapi.json for the routes.
error-method-not-allowed = method not allowed on this route
error-method-not-allowed-suggestion = See GET /api/openapi.json for the methods of each route.

error-explore-no-seeds = campaign { $id } has no seed personas or no seed goals: there is nothing to explore
error-explore-no-seeds-suggestion = Add at least one persona and one goal to the campaign's seed set, or start a manual session.
error-explore-all-covered = every persona x goal cell of campaign { $id } has a session already
error-explore-all-covered-suggestion = Choose the cells to explore again, or add personas or goals in a next period.
error-explore-too-many-cells = { $count } cells asked for; at most { $max } per request
error-explore-too-many-cells-suggestion = Explore fewer cells at a time; the session budget bounds them anyway.
error-explore-cell-unknown = { $field } "{ $id }" is not in the seed set of campaign { $campaign }
error-explore-cell-unknown-suggestion = Use persona and goal ids from the campaign's seed set.
error-rating-suggestion = Rate 1 (poor) to 5 (excellent).
error-comment-too-long = comment is longer than { $max } characters
error-comment-too-long-suggestion = Shorten the comment.
error-override-score = judge_override.score must be 1-5
error-override-score-suggestion = Give a score from 1 to 5.
error-page-limit = limit { $got } is out of range: 1 to { $max } rows per page
error-page-limit-suggestion = Ask for at most { $max } rows and page on with offset.
error-verdict-filter = verdict "{ $got }" is not one of passed, failed, error, skipped, pending
error-verdict-filter-suggestion = Filter by passed, failed, error, skipped or pending, or leave verdict out.
error-too-many-ids = { $count } session ids given; at most { $max }
error-too-many-ids-suggestion = Ask for fewer sessions at a time.
error-key-role = role must be viewer, editor or admin, got "{ $got }"
error-key-role-suggestion = Give the role as viewer (reads only), editor (everything but keys) or admin.
error-key-name-suggestion = Use 1-64 letters, digits, '.', '_' or '-', beginning with a letter or a digit (e.g. alice or ci-nightly).
error-key-name-empty = the key name is empty
error-key-name-long = the key name is longer than { $max } characters
error-key-name-character = the key name "{ $name }" has a character that is not allowed
error-key-name-server = the key name { $name } is the server's own key (--api-key)
error-key-name-taken-suggestion = Choose another name.
error-key-exists = a key named { $name } exists already
error-key-exists-suggestion = Choose another name, or revoke the key and create one under a new name.
error-key-unknown = there is no key named { $name }
error-key-unknown-suggestion = List the keys (agenteval keys list, GET /api/keys) and use one of their names.
error-target-model-empty = channel.model must not be empty
error-target-model-empty-suggestion = Name the model the endpoint serves, e.g. gpt-4o-mini.
error-target-key-ref = channel.api_key_ref is not this target's key
error-target-key-ref-suggestion = Send the api_key_ref the target has, or a new api_key.
error-export-format = export format "{ $format }" is not available
error-export-format-suggestion = Use format=md, json, csv, sessions_csv or junit.

error-min-kappa-suggestion = Use 0.6 (substantial agreement) unless your team agreed on another bar.
error-min-items-suggestion = Use 30 labelled sessions or more for a kappa worth trusting.
error-min-self-agreement-suggestion = Use 0.8: the judge gives the same score in both passes 8 times in 10.
error-queue-limit-suggestion = Ask for a few items at a time, e.g. limit=10.
error-label-score-suggestion = Score each criterion from 1 (poor) to 5 (excellent); for hallucination 5 means nothing was invented.
error-reviewer-long = reviewer is longer than 200 characters
error-reviewer-long-suggestion = Give a name or initials.
error-label-not-judged = session { $id } has no judge scores to compare with
error-label-not-judged-suggestion = Label sessions from the blind review queue: they are the ones the judge scored.
error-label-twice = session { $id } is already labelled
error-label-twice-suggestion = Each session is labelled once, blind; take the next one from the queue.
error-run-scores-empty = scores is empty
error-run-scores-suggestion = Score every rubric check the queue item lists, by its check_index.
error-run-score-range = scores of check { $check } must be 1-5, got { $got }
error-run-score-range-suggestion = Score each rubric check from 1 (does not meet the rubric) to 5 (fully meets it).
error-run-scores-mismatch = scores must name each rubric check of run { $id } once: checks { $wanted }, got { $given }
error-run-label-twice = run { $id } is already labelled
error-run-label-twice-suggestion = Each run is labelled once, blind; take the next one from the queue.
error-run-not-judged = run { $id } has no judged rubric check to compare with
error-run-not-judged-suggestion = Label runs from the blind review queue: they are the finished runs whose rubric checks the judge scored.
error-mcp-trigger = The trigger "{ $trigger }" is not one of auto and manual.
error-mcp-trigger-suggestion = Leave trigger out (a patrol's own decision is auto) or give manual.
error-mcp-seed-pair = A session needs its persona and its goal: both seed ids (persona_id and goal_id), or both objects (persona and goal).
error-mcp-seed-pair-suggestion = Take a cell from patrol: its persona_id and goal_id, as the campaign's seed set names them.
error-mcp-record = The experience record cannot be read: { $detail }.
error-mcp-record-suggestion = Give goal_achieved (true or false) and, if you give one, an end_reason of user_goal_met, user_gave_up, max_turns, simulator_error or budget_exhausted.

# What the YAML reader found wrong in a pack file.
yaml-top = the top of the file
yaml-invalid-type = { $place } has the wrong type: { $expected } was expected, { $found } was found
yaml-missing-field = { $place } lacks the field { $field }
yaml-unknown-field = { $place } has an unknown field { $name } (known: { $expected })
yaml-unknown-variant = { $place } has an unknown value { $name } (allowed: { $expected })
yaml-other = the YAML does not parse: { $detail }
yaml-at-column = { $problem } (column { $column })
yaml-at-end = { $problem } (at the end of the file)
yaml-kind-map = an object (key: value)
yaml-kind-list = a list
yaml-kind-text = text
yaml-kind-integer = a whole number
yaml-kind-number = a number
yaml-kind-boolean = true or false
yaml-kind-null = nothing (null)

# A skill manifest a pack is derived from.
error-skill-manifest-unreadable = the skill manifest cannot be read, line { $line }: { $problem }
error-skill-manifest-unreadable-suggestion = Give a JSON (or YAML) manifest with at least `name` and `parameters`, like examples/send_email.skill.json.
error-skill-no-name = the skill manifest has no usable `name`
error-skill-no-name-suggestion = Give the skill a name of letters, digits and underscores, e.g. `send_email`.
error-skill-no-parameters = skill `{ $name }` declares no parameters, so there is nothing to check
error-skill-no-parameters-suggestion = List the skill's `parameters` with `required`, `validation` and limits.
error-skill-bad-pattern = parameter `{ $parameter }` has a validation pattern that does not compile: { $detail }
error-skill-bad-pattern-suggestion = Fix the `validation` regular expression in the manifest.

# The audit log's retention, from the environment or the command line.
error-audit-retention = audit retention must be a whole number of days (at least 1), got { $got }
error-audit-retention-suggestion = Set { $env } or --audit-retention-days to e.g. 90.
