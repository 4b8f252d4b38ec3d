# The offline heuristic judge's findings and evidence. Quoted replies are
# the target's own words.

judge-empty-reply = the target gave an empty reply
judge-repeated-reply = the target repeated its previous reply "{ $reply }"
judge-invented-figure = stated the figure { $figure }, which appears nowhere in what the user gave: "{ $reply }"
judge-refusal-loop = refusal loop: { $count } refusals in a row
judge-refused-once = the target refused once
judge-slow-reply = slow reply: { $ms } ms
judge-replies-fine = all { $count } replies were non-empty, varied and timely
judge-figures-given = every figure in the replies was given by the user
judge-no-refusals = no refusals
judge-evidence-quote = "{ $reply }"
judge-no-refusal-in = no refusal found in { $count } replies
judge-no-bad-reply-in = no empty, repeated or slow reply found in { $count } replies
judge-no-figure-in = no unverified figure found in { $count } replies
judge-simulator-fault = the virtual user { $kind }
judge-simulator-fault-detail = the virtual user { $kind }: { $detail }
judge-simulator-error = the virtual user failed (simulator error)
