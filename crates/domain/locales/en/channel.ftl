# A target that did not answer: what happened, in plain words, and what to
# do about it.

target-this = the target
target-not-listening = nothing is listening at { $at }
target-not-listening-suggestion = Start the agent, or fix the URL's host and port.
target-host-unknown = the host name { $host } could not be found
target-host-unknown-suggestion = Check the spelling of the host in the URL.
target-tls = a secure connection to { $at } could not be made
target-tls-suggestion = Check whether the URL should start with http:// or https://, and that the certificate is valid.
target-closed = { $at } closed the connection without answering
target-closed-suggestion = Check that the URL points at the agent's API and not at another service.
target-unreachable = { $at } could not be reached
target-unreachable-suggestion = Check that the agent is running and that the URL is right.
target-timeout = { $at } did not answer in time
target-timeout-suggestion = Check that the agent is running; if it is slow, raise the target's timeout.
target-rate-limited = { $at } is limiting the request rate (HTTP 429)
target-rate-limited-suggestion = Wait and test again, or lower the target's rate limit.
target-credentials = { $at } refused the credentials (HTTP { $status })
target-credentials-suggestion = Check the API key (or the environment variable that holds it).
target-no-path = nothing answers at this path of { $at } (HTTP 404)
target-no-path-suggestion = Check the URL's path, e.g. it ends in /v1 for an OpenAI-compatible endpoint.
target-failed = the agent at { $at } failed (HTTP { $status })
target-failed-suggestion = See the agent's log; test again once it is fixed.
target-refused = { $at } refused the request (HTTP { $status })
target-refused-suggestion = Check the channel settings: the model name, headers or request template.
target-error-answer = { $at } answered with an error
target-error-answer-suggestion = Check the channel settings.
target-malformed = { $at } answered, but not in the form this channel expects
target-malformed-suggestion = Check the channel kind (OpenAI-compatible or HTTP JSON) and the response path.
target-too-large = the reply from { $at } is too large
target-too-large-suggestion = Check that the URL points at the agent's chat endpoint.
target-config = the channel settings cannot be used: { $detail }
target-config-suggestion = Fix the target's channel settings.
target-session-failed = the target did not answer after its retries: { $detail }; the session has failed
target-session-failed-suggestion = Check the target (targets page, connection test); then start a new session.
target-cannot-build = target { $name } cannot be reached: { $detail }
target-cannot-build-suggestion = Check the target's channel settings on the targets page.
