# The exploration budget's refusals: each names its reason and what the
# agent can do about it.

guard-turn-limit = session { $id } has used its { $max } user turns
guard-turn-limit-suggestion = Close the session with its experience record (end_reason max_turns).
guard-session-not-running = session { $id } is { $status }
guard-session-ended = session { $id } is { $status } ({ $reason })
guard-session-not-running-suggestion = Start a new session if the budget allows; this one accepts no more messages.
guard-campaign-not-running = campaign { $id } is not running: { $why ->
    [finalized] it has been finalized
    [cancelled] it was cancelled
    [draft] it is a draft
    [ended] its window ended at { $at }
   *[not-started] its window starts at { $at }
}
guard-campaign-not-running-suggestion = Explore only campaigns whose window is open; GET /api/exploration/patrol lists them.
guard-accelerated = campaign { $id } runs on the accelerated line (time_scale { $scale }): only sessions started on request (trigger "manual") are allowed
guard-accelerated-suggestion = Send trigger: "manual" to debug exploration on this campaign.
guard-no-seeds = campaign { $id } has an empty seed set and takes no part in automatic exploration
guard-no-seeds-suggestion = Send trigger: "manual" to debug, or create a campaign with seed personas and goals.
guard-unknown-persona = seed_ref.persona_id "{ $id }" is not a persona of the campaign's seed set
guard-unknown-persona-suggestion = Use a persona id listed by GET /api/exploration/patrol (seeds.personas).
guard-unknown-goal = seed_ref.goal_id "{ $id }" is not a goal of the campaign's seed set
guard-unknown-goal-suggestion = Use a goal id listed by GET /api/exploration/patrol (seeds.goals).
guard-auto-needs-seed = auto-triggered sessions need a seed_ref {"{"}persona_id, goal_id{"}"}
guard-auto-needs-seed-suggestion = Name the seed persona and goal the session comes from; variants add seed_ref.variant.
guard-budget = campaign { $id } has used its { $max } exploration sessions for this window
guard-budget-suggestion = Stop dispatching sessions for this campaign; its fixed plan carries on.
guard-interval = the previous session started less than { $minutes } minutes (campaign time) ago; the next is allowed at { $next }
guard-interval-suggestion = Wait until next_allowed_at before starting another session.

error-seed-value-empty = { $field } must not be empty
error-seed-value-shape = { $field } must be a JSON object or a string
error-seed-value-suggestion = Describe the { $field }, e.g. {"{"}"name": "...", ...{"}"} or a sentence.
error-seed-value-large = { $field } is larger than 16 KiB
error-seed-value-large-suggestion = Keep the { $field } short: describe it, do not paste documents.
error-user-model-played-by = user_model is given but played_by is { $played_by }
error-user-model-played-by-suggestion = Send user_model only with played_by: "model", or leave it out.
error-user-model-length = user_model must be 1 to { $max } characters
error-user-model-length-suggestion = Name the model that plays the user, e.g. "qwen2.5-7b-instruct".
error-end-reason-on-close = end_reason { $reason } is set by the platform, not on close
error-end-reason-on-close-suggestion = Use user_goal_met, user_gave_up, stopped, max_turns, simulator_error or budget_exhausted.
error-person-simulator-error = a session played by a person cannot end as simulator_error
error-person-simulator-error-suggestion = Close it as user_goal_met, user_gave_up or stopped: a person is not a simulator.
error-discard-not-running = session { $id } has already ended; only a running session can be discarded
error-discard-not-running-suggestion = An ended session keeps its record; there is nothing to discard.
error-variant-note-long = seed_ref.variant.note is longer than { $max } characters
error-variant-note-long-suggestion = Say briefly how the variant differs from its seed.
error-message-empty = content must not be empty
error-message-empty-suggestion = Send what the virtual user says next.
error-message-long = content is longer than { $max } KiB
error-message-long-suggestion = Send shorter messages, as a real user would.
error-seed-cell-unknown = seed cell { $persona } × { $goal } is not in the seed set of campaign { $campaign }
error-seed-cell-unknown-suggestion = Use persona and goal ids from the campaign's seed set.
error-patrol-agent-absent = no patrol agent runs in this process
error-patrol-agent-absent-suggestion = Start `agenteval serve` without --no-patrol to run the patrol agent.
