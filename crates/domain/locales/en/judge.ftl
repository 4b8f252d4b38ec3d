# The offline heuristic judge's findings and evidence. Quoted replies are
# the target's own words.

judge-empty-reply = the target gave an empty reply
judge-repeated-reply = the target repeated its previous reply "{ $reply }"
judge-invented-figure = stated the figure { $figure }, which appears nowhere in what the user gave: "{ $reply }"
judge-invented-figure-tools = stated the figure { $figure }, which neither the user gave nor a tool returned: "{ $reply }"
judge-figures-returned = every figure in the replies was given by the user or returned by a tool
judge-steps-fine = no made-up tool, no failed call repeated and no claim without its step in { $count } steps
judge-step-limit = still calling tools after { $max } rounds: the turn was stopped at its step limit
judge-unknown-tool = called `{ $tool }`, a tool it was not offered
judge-repeated-failed-call = step { $step } repeated the call to `{ $tool }` that failed at step { $failed } ({ $code }) as it was
judge-claimed-failed = said "{ $claim }", but `{ $tool }` failed ({ $code }) and no later call did it: "{ $reply }"
judge-claimed-no-step = said "{ $claim }", but no successful tool call did it: "{ $reply }"
judge-refusal-loop = refusal loop: { $count } refusals in a row
judge-refused-once = the target refused once
judge-slow-reply = slow reply: { $ms } ms
judge-replies-fine = { $count ->
    [1] the one reply was non-empty and timely
   *[other] all { $count } replies were non-empty, varied and timely
}
judge-figures-given = every figure in the replies was given by the user
judge-no-refusals = no refusals
judge-evidence-quote = "{ $reply }"
judge-no-refusal-in = no refusal found in { $count } replies
judge-no-bad-reply-in = no empty, repeated or slow reply found in { $count } replies
judge-no-figure-in = no unverified figure found in { $count } replies
judge-simulator-fault = the virtual user { $kind }
judge-simulator-fault-detail = the virtual user { $kind }: { $detail }
judge-simulator-error = the virtual user failed (simulator error)
judge-fault-invented_fact = the virtual user stated { $detail }, which neither the persona, the goal nor the target gave
judge-fault-left_language = the virtual user left the persona's language
judge-fault-quit_early = the virtual user gave up after { $detail } replies of the target, before its patience ran out
judge-fault-went_on_after_goal = the virtual user kept talking after the goal was met (the reply to round { $detail } met it)
judge-fault-drifted = none of the virtual user's { $detail } turns after the first mentions the goal
judge-fault-record_disagrees = { $detail ->
    [met] the virtual user's record says the goal was met, yet it gave up
   *[other] the session ended as goal met, yet the virtual user's record says it was not
}
