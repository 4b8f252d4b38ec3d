# Names the engine's sentences use: end reasons, statuses, emotions,
# verdicts, grades, dimensions, check kinds, who played a session.
# A name is `<family>-<value>`, the value as the API spells it.

end-reason-user_goal_met = goal met
end-reason-user_gave_up = user gave up
end-reason-max_turns = turn limit reached
end-reason-target_error = target error
end-reason-simulator_error = virtual user error
end-reason-budget_exhausted = budget used up
end-reason-expired = expired
end-reason-stopped = stopped by the user
end-reason-abandoned = abandoned

session-status-running = running
session-status-completed = completed
session-status-failed = failed
session-status-expired = expired

campaign-status-draft = draft
campaign-status-scheduled = scheduled
campaign-status-running = running
campaign-status-finalized = finalized
campaign-status-cancelled = cancelled

emotion-satisfied = satisfied
emotion-neutral = neutral
emotion-confused = confused
emotion-frustrated = frustrated
emotion-angry = angry
emotion-delighted = delighted
emotion-anxious = anxious

verdict-passed = passed
verdict-failed = failed
verdict-error = error
verdict-skipped = skipped
verdict-pending = pending

grade-poor = poor
grade-fair = fair
grade-good = good

dimension-attitude = attitude
dimension-professionalism = professionalism
dimension-hallucination = hallucination
dimension-simulator = virtual user
dimension-trajectory = steps

trajectory-kind-unknown-tool = called a tool not offered
trajectory-kind-repeated-failed-call = repeated a failed call
trajectory-kind-claimed-failed = claimed an action whose call failed
trajectory-kind-claimed-no-step = claimed an action no call did
trajectory-kind-step-limit = reached the step limit
trajectory-kind-other = other step findings

check-kind-contains = contains
check-kind-not_contains = does not contain
check-kind-regex = matches a pattern
check-kind-json_path = JSON path
check-kind-max_latency_ms = latency limit
check-kind-tool_called = tool called
check-kind-asks_clarification = asks back
check-kind-no_repeat = no repeated reply
check-kind-document = document content
check-kind-file_exists = file produced
check-kind-no_unverified_numbers = no unverified figures
check-kind-rubric = rubric
check-kind-tool_sequence = order of tool calls
check-kind-tool_not_called = tool not called
check-kind-no_unknown_tools = no unknown tools
check-kind-recovers_from_error = recovers from tool errors
check-kind-max_steps = step limit

fault-kind-invented_fact = invented a fact
fault-kind-left_language = left the persona's language
fault-kind-quit_early = gave up too early
fault-kind-went_on_after_goal = went on after the goal was met
fault-kind-drifted = drifted from the goal
fault-kind-record_disagrees = its record contradicts its end

played-by-person = a person
played-by-assistant = an external assistant
played-by-builtin = the built-in persona engine
played-by-model = a model

trigger-auto = patrol (started automatically)
trigger-manual = on request

issue-kind-blocker = blocker
issue-kind-misled = misled

value-na = n/a
grade-severe = severe
grade-unrated = unrated

## The name of a campaign's next period, unless one is given
campaign-next-period-name = { $name } (next period)
model-answer-no-json = its answer holds no JSON object
model-answer-off-schema = its answer does not have the agreed form
model-answer-off-schema-at = its answer does not have the agreed form at { $path }
model-answer-empty-summary = its summary is empty

# A scenario's difficulty group.
group-basic = basic
group-intermediate = intermediate
group-advanced = advanced
