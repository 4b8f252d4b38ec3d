# The command line's own sentences: the CI gate's verdict.

gate-passed = Gate passed.
gate-passed-notes = Gate passed: { $notes }.
gate-failed = Gate failed: { $why }.
gate-below-minimum = the pass rate { $rate } is below the minimum { $min }
gate-meets-minimum = the pass rate { $rate } meets the minimum { $min }
gate-interval = , 95% interval { $low } to { $high }
gate-dropped = against the baseline the pass rate dropped by { $drop } points, beyond the noise ({ $change } points{ $interval })
gate-within-noise = against the baseline the change ({ $change } points{ $interval }) is within noise
gate-too-few = the baseline has too few judged runs to compare
gate-regressed = { $count ->
    [one] 1 scenario always passed in the baseline and now always fails
   *[other] scenarios always passed in the baseline and now always fail
}: { $scenarios }
gate-flaky-failing = flaky scenarios with --fail-on-flaky: { $scenarios }
gate-flaky = flaky, not failing the gate: { $scenarios }
gate-models-unrecorded = { $side } does not record which models played the user and the judge; only the target's identity is compared

# `agenteval run`'s summary on stdout.
run-title = AgentEval run: { $name }
run-campaign = {"  "}campaign:    { $id } (data: { $data })
run-target = {"  "}target:      { $name } ({ $model })
run-pass-rate = {"  "}pass rate:   { $rate }; { $passed } passed, { $failed } failed, { $errors } in error
run-scenarios = {"  "}scenarios:   { $count } ({ $passed } passed, { $failed } failed, { $flaky } flaky, { $errors } in error)
run-flaky-none = {"  "}flaky:       none
run-flaky = {"  "}flaky:       { $list }
run-flaky-item = { $id } ({ $passed } of { $runs } runs passed)
run-rubric-judge = {"  "}rubric judge: kappa { $kappa } over { $labels } labels, { $status }
run-errors = {"  "}errors:      { $list }
run-exploration = {"  "}exploration: { $sessions } sessions, goal achievement { $rate }, { $issues } issues, { $reviews } judge reviews
run-issue = {"    "}- { $issue } ({ $count } sessions)
run-exports = {"  "}exports:     { $files }
run-baseline = {"  "}baseline:    { $label } ({ $name }): pass rate { $then } then, { $now } now. { $verdict }
run-flipped = {"    "}flipped (majority verdict changed): { $list }
run-regressed = {"    "}regressed (always passed, now always fail): { $list }
run-warning = {"    "}warning: { $warning }
run-note = {"    "}note: { $note }
rate-interval = { $rate } (95% interval { $low } to { $high }, { $runs } judged runs)
rate-no-judged = { $rate } (no judged run)
run-passed-of = { $passed }/{ $judged } passed
run-in-error = {" "}({ $count } in error)

# `agenteval demo`'s summary (the lines scripts read, campaign, database
# and report, stay as they are).
demo-title = AgentEval demo (offline: built-in demo agent, no API key)
demo-data-folder = {"  "}data folder: { $path }
demo-scenarios = {"  "}scenarios: { $count } loaded from { $sources }
demo-target-name = Demo agent
demo-campaign-name = Demo campaign { $at }
demo-campaign = {"  "}campaign: { $name } ({ $id }), accelerated line: { $span } in { $seconds } s
demo-one-week = one week
demo-hours = { $hours } hours of campaign time
demo-pass-rate = {"  "}pass rate: { $rate } ({ $passed } passed, { $failed } failed, { $errors } errors)
demo-exploration = {"  "}exploration: { $sessions } sessions, goal achievement { $rate }, { $issues } issues, { $reviews } judge reviews
sources-shipped = the shipped packs
sources-and = {" and "}

## scenarios from-session
cli-regression-written = wrote { $id } to { $path }
  guarding against: { $finding }
demo-where-campaign = {"  "}campaign:  { $id }
demo-where-database = {"  "}database:  { $path }
demo-where-report = {"  "}report:    { $path }
