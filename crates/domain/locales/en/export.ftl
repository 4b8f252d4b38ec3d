# The Markdown report: headings, table rows and the report's own
# sentences. Names, quoted text and ids come in as arguments.

md-title = # Campaign report: { $name }
md-campaign-id = | Campaign id | `{ $id }` |
md-target = | Target | { $name } ({ $model }) |
md-builtin-demo = the built-in demo agent
md-status = | Status | { $status } |
md-line-formal = | Line | formal (real time) |
md-line-accelerated = | Line | accelerated (time scale { $scale }) |
md-window = | Window | { $start } → { $end } |
md-generated = | Generated | { $at } |
md-list-separator = {", "}
md-clause-separator = {"; "}
md-yes = yes
md-no = no

md-fixed = ## Fixed scenarios
md-pass-rate = **Pass rate: { $rate }** ({ $passed } passed, { $failed } failed; pass rate = passed / (passed + failed)). Runs in error: { $errors }. Skipped: { $skipped }. Still pending: { $pending }. Exploration data never enters this figure.
md-metric-header = | Metric | Value |
md-runs-finished = | Runs finished / planned | { $finished } / { $planned } |
md-completion = | Completion rate | { $rate } |
md-pass-rate-interval = | Pass rate, 95% interval (Wilson) | { $interval } |
md-coverage = | Key-field coverage | { $rate } |
md-latency = | Latency p50 / p95 | { $p50 } / { $p95 } |
md-tokens = | Tokens in / out | { $tokens_in } / { $tokens_out } |
md-cost = | Estimated cost | { $cost } |
md-per-scenario = ### Per scenario
md-per-scenario-header = | Scenario | Pack | Runs | Passed | Failed | Errors | Pass rate |
md-per-group = ### Per difficulty group
md-tasks = ### Tasks per difficulty group
md-tasks-header = | Group | Runs | Task completion | Key-field coverage | Steps per task | Tokens per task | Time per task |
md-tasks-note = A task is completed when every turn got a reply and the document or file it asks for was produced; runs in error count as not completed. Steps are the tool calls the engine answered.
md-per-tag = ### Per tag
md-group-header = | Name | Runs | Passed | Failed | Errors | Pass rate |
md-failed-checks = ### Failed checks
md-failed-check = - **{ $title }** · { $kind } × { $count }: { $detail } (e.g. { $run })
md-guarded = ### Found by exploration, now guarded
md-guarded-header = | Scenario | Found in | Finding | This period |
md-guarded-found = session { $session }, turn { $turn }
md-guarded-result = { $passed } passed, { $failed } failed ({ $rate })
md-errors = ### Runs in error

md-human = ### Human review
md-runs-rated = | Runs rated | { $count } (mean { $mean }) |
md-sessions-rated = | Sessions rated | { $count } (mean { $mean }) |
md-overrides = | Judge overrides | { $count } |
md-agreement = | Judge-human agreement | { $rate } over { $compared } compared |

md-analysis = ## Appendix: Analysis
md-analysis-template-unavailable = *Template analysis built from the figures (the analyst model was unavailable), { $at }.*
md-analysis-template = *Template analysis built from the figures (no analyst model), { $at }.*
md-analysis-model = *Written by the analyst model { $model }, { $at }.*
md-analysis-note = > Note: { $reason }
md-cites = {" "}({ $cites })

md-comparison = ## Appendix: Period comparison
md-comparison-this = This period: pass rate { $rate } over { $judged } judged runs. Exploration data takes no part in the comparison.
md-comparison-within = Within this period, { $rate } of repeated scenarios had both passing and failing runs (the noise floor).
md-comparison-pass-k = Consistency where scenarios repeat: { $values }.
md-comparison-header = | Earlier period | Pass rate | Change | 95% interval | Flip rate | Reading |
md-points = { $points } pts
md-interval = { $low } to { $high }
md-comparison-warning = > Warning ({ $name }): { $warning }
md-comparison-flipped = - Flipped since { $name }: { $scenarios }

md-provenance = ## What left this machine
md-provenance-none = Nothing left this machine: no host was contacted (built-in agents run in-process).
md-provenance-loopback = Nothing left this machine: every host contacted is on this machine (loopback).
md-provenance-outside = Requests left this machine: { $count } host(s) outside it were contacted.
md-provenance-header = | Role | Host | Requests | Tokens in | Tokens out | On this machine |
host-role-target = target
host-role-virtual_user = virtual user
host-role-judge = judge
host-role-analyst = analyst
host-role-tool_simulator = tool simulator

md-degraded = > Degraded: { $what }.
md-degraded-judge = { $count } judge review(s) failed (the judge model was unavailable); those sessions have no quality scores
md-degraded-user = { $count } session(s) ended with simulator\_error (the virtual user model failed); they are not counted against the target

md-calibrated = calibrated
md-advisory = advisory
md-kappa-no-interval = { $kappa } [interval n/a]
calibration-calibrated = calibrated
calibration-advisory-rubric = advisory (needs kappa >= { $min_kappa } over { $min_items } labelled rubric checks)
calibration-advisory-sessions = advisory (needs kappa >= { $min_kappa } over { $min_items } labelled sessions)
md-rubric = ### Rubric checks
md-rubric-note = Rubric checks are scored 1-5 by a judge (a model, or the offline heuristic). Rubric checks labelled blind: { $items } (runs labelled: { $labelled }; runs not labelled yet: { $unlabelled }). Agreement { $agreement }, kappa { $kappa }. The judge's rubric figures are { $status }.
md-calibration = ### Judge calibration
md-calibration-note = People label the judge's sampled sessions (and the rubric checks of fixed runs) blind, on the judge's own criteria (1-5). Kappa is Cohen's kappa, linearly weighted, with a 95% bootstrap interval; a criterion is calibrated at kappa >= { $min_kappa } over at least { $min_items } labelled items. Until then its judge figures in this report are advisory. { $labelled } labelled, { $unlabelled } judged sessions not labelled yet.
md-calibration-header = | Criterion | Labelled | Agreement | Kappa [95% interval] | Judge figures |
md-consistency = ### Judge consistency
md-consistency-note = The judge reviewed its sample a second time with the rounds in reverse order (and, for a judge model, the rubric reworded). Self-agreement is the share of sessions with the same score in both passes; below { $min } the judge contradicts itself.
md-consistency-header = | Criterion | Reviewed twice | Self-agreement | Kappa | Judge |
md-contradicts = contradicts itself
md-consistent = consistent

md-none = none
md-not-recorded = not recorded
md-structured = { $who } (structured output: { $mode })
md-exploration = ## Appendix: Exploration findings
md-exploration-intro = Exploration is a separate evidence line: virtual users role-play seeded personas pursuing seeded goals. It never enters the pass rate above.
md-sessions = | Sessions | { $count } ({ $by_status }) |
md-goal-achievement = | Goal achievement | { $rate } ({ $achieved } of { $records } experience records) |
md-end-reasons = | End reasons | { $counts } |
md-triggers = | Triggers | { $counts } |
md-emotions = | Emotions | { $counts } |
md-played-by = | Played by | virtual user: { $user }; judge: { $judge } |
md-simulator-sessions = | Simulator-attributed sessions | { $count } (the virtual user was at fault; not counted against the target) |
md-fault-kind = { $kind } { $faults } ({ $sessions ->
    [one] { $sessions } session
   *[other] { $sessions } sessions
})
md-simulator-faults = | Simulator faults found by the check | { $kinds } |
md-trajectory-findings = | Found in the target's steps | { $kinds } |
md-at-step = { $session }, step { $step }
md-judge-review = | Judge review | { $reviewed } reviewed, { $failed } failed, { $pending } pending{ $dimensions } |
md-judge-dimensions = {"; "}{ $dimensions }
md-issues = ### Issues found
md-issues-header = | Kind | Issue | Sessions | Transcripts |
md-and-more = {" "}and { $count } more
md-more-issues = { $count } more issues, each seen less often: see the app or the JSON export.
md-findings = ### Judge findings (poor first)
md-evidence = {" "}— "{ $evidence }"
md-more-findings = { $count } more findings: see the app or the JSON export.
md-coverage-grid = ### Coverage (persona × goal: sessions / achieved / issues)
md-coverage-grid-production = ### Coverage (persona × goal: sessions / achieved / issues / production conversations)
md-coverage-header = | Persona | { $goals } |
md-unseeded = Sessions without a seed (manual): { $count }.
md-production-coverage = { $placed } of { $total } production conversations of this target fall on these cells; { $unplaced } resemble no goal.
md-production-untried = Production reaches cells exploration never tried: { $cells }.
md-transcripts = ## Appendix: Exploration transcripts
md-transcripts-some = The { $shown } sessions linked above; the other { $others } are in the app and the sessions CSV export.
md-session = ### { $name }
md-session-id = - Session id: `{ $id }`
md-session-persona = - Persona: { $persona }
md-session-goal = - Goal: { $goal }
md-session-status = - Status: { $status } · end reason: { $end_reason } · trigger: { $trigger } · user played by { $played_by } · user turns: { $turns }
md-session-experience = - Experience: goal { $goal } · emotion { $emotion } · blockers: { $blockers } · misled: { $misled }
md-achieved = achieved
md-not-achieved = not achieved
md-session-notes = - Notes: "{ $notes }"
md-session-notes-builtin = - Notes: { $notes }
md-user = User
md-target-speaker = Target
md-latency-ms = {" "}({ $ms } ms)
md-offline-user = offline persona engine
md-offline-judge = offline heuristic judge
md-dimension-score = { $dimension } { $score }/5 ({ $status })
md-finding = - **{ $grade }**{ $dimension }: { $text }{ $evidence } ({ $session })
md-quoted-list = { $items }
md-steps = ## Appendix: Steps of failed runs
md-steps-intro = Each tool call the engine answered before the target's reply, in order: the tool, its arguments and what the engine answered (an error's message and suggestion quoted as the agent read them).
md-steps-run = ### { $name }
md-steps-run-id = - Run ID: `{ $id }`
md-steps-check = - Failed: { $kind } at turn { $turn }: { $detail }
md-steps-check-at = - Failed: { $kind } at turn { $turn }, step { $step }: { $detail }
md-steps-turn = **Turn { $turn }** ({ $count ->
    [one] 1 step
   *[other] { $count } steps
})
md-step = { $number }. { $tool } { $arguments } → { $answer }
md-step-result = result { $result }
md-step-simulated = simulated result { $result }
md-step-simulated-error = simulated error { $code }: “{ $message }”
md-step-error = error { $code }: “{ $message }”
md-step-error-suggestion = error { $code }: “{ $message }” (suggestion: “{ $suggestion }”)
md-tasks-compared = Tasks per difficulty group, this period ← { $name }:
