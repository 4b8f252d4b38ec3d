# The engine's errors: a message and a suggestion each.

error-internal = an internal error occurred
error-internal-suggestion = Retry; if it persists, see the log for details.

error-thing-campaign = campaign
error-thing-run = run
error-thing-session = session
error-thing-target = target
error-thing-key = key
error-not-found = { $thing } { $id } does not exist
error-not-found-suggestion = List the existing ones ({ $thing }) and use one of their ids.

error-unknown-language = unknown language "{ $lang }"
error-unknown-language-suggestion = Use `lang=zh` or `lang=en`.
