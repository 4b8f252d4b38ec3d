# The report's conclusions: the period comparison's verdicts and warnings,
# the template analysis.

comparison-within-noise = Pass rate changed by { $change } points, within noise (95% interval { $low } to { $high }): no real change is shown.
comparison-improved = Pass rate improved by { $change } points, beyond noise (95% interval { $low } to { $high }).
comparison-dropped = Pass rate dropped by { $change } points, beyond noise (95% interval { $low } to { $high }).
comparison-not-enough = Not enough judged runs in one of the periods to compare.
comparison-warning-target = target model differs: { $then } then, { $now } now
comparison-warning-user = the virtual-user model differs between the periods
comparison-warning-judge = the judge model differs between the periods

analysis-summary = { $fixed }{ $exploration }{ $nothing }
analysis-fixed = Fixed scenarios: pass rate { $rate } over { $judged } judged runs ({ $passed } passed, { $failed } failed), { $errors } runs in error counted apart.
analysis-exploration = {" "}Exploration (a separate evidence line): { $sessions } virtual-user sessions, goal achievement { $achieved }.
analysis-fixed-all-errored = Fixed scenarios: { $errors ->
    [one] the only run ended in error
   *[other] all { $errors } runs ended in error
}, so none was judged and there is no pass rate.
analysis-errors = { $count ->
    [one] 1 run ended in error
   *[other] { $count } runs ended in error
}: { $error }.
analysis-nothing = {" "}No failing scenario and no exploration issue to report.
analysis-scenario-fails = Scenario "{ $title }" fails { $failed } of { $judged } judged runs.
analysis-scenario-fails-because = Scenario "{ $title }" fails { $failed } of { $judged } judged runs: { $detail } ({ $kind }).
analysis-issue = Virtual users ran into "{ $issue }" in { $count } session(s).
analysis-fallback-malformed = the analyst model's answer was not the requested JSON: { $detail }
analysis-fallback-failed = the analyst model failed: { $detail }

## How the report names the runs and sessions it cites
evidence-run = { $scenario }, run { $number }
evidence-run-id = run { $id }
evidence-session = { $persona } × { $goal } #{ $ordinal }
evidence-session-id = session { $id }
evidence-turn = { $session }, turn { $turn }

## A regression scenario drafted from a finding
regression-title = Found by exploration: { $finding }
regression-rubric = The reply must not do what was found here when exploring: { $finding }
regression-flagged-turn = Flagged by a person at turn { $turn }: a reply like "{ $reply }" must not happen again
regression-rubric-flagged = The reply at turn { $turn } must not be like the one a person flagged: "{ $reply }"
