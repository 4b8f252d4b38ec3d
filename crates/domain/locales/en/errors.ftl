# The engine's errors: a message and a suggestion each.

error-internal = an internal error occurred
error-internal-suggestion = Retry; if it persists, see the log for details.

error-thing-campaign = campaign
error-thing-run = run
error-thing-session = session
error-thing-target = target
error-thing-key = key
error-thing-conversation = imported conversation
error-not-found = { $thing } { $id } does not exist
error-not-found-suggestion = List the { $thing }s that exist and use one of their ids.

error-unknown-language = unknown language "{ $lang }"
error-unknown-language-suggestion = Use `lang=zh` or `lang=en`.

error-write-file = cannot write { $path }: { $detail }
error-write-file-suggestion = Choose a folder you may write to.
error-remote-file = { $file } is invalid: { $detail }
error-remote-file-suggestion = Connect to the team server again in Settings.
error-remote-key-empty = the team server's API key is empty
error-remote-key-empty-suggestion = Paste the key the server's operator gave you (`agenteval keys create`).
error-remote-key-unknown = the team server at { $url } does not know this key (or it was revoked)
error-remote-key-unknown-suggestion = Check the key with the server's operator (`agenteval keys list`).
error-remote-not-agenteval = { $url } is not an AgentEval server this app can use: /api/whoami answered HTTP { $status }
error-remote-not-agenteval-suggestion = Check the URL (the server's address, without /api), and that the server runs the same version as the app.
error-remote-answer = { $url } answered, but not as an AgentEval server
error-remote-answer-suggestion = Check the URL: it is the address `agenteval serve` listens on.
error-remote-url = the server URL "{ $url }" is invalid: { $detail }
error-remote-url-scheme = the server URL "{ $url }" must be http:// or https:// with a host
error-remote-url-suggestion = Give the address `agenteval serve` listens on, e.g. http://10.0.0.5:8787 or https://agenteval.example.com.
error-remote-url-extra = the server URL "{ $url }" may not carry a query, a fragment or credentials
error-remote-url-extra-suggestion = Give the address alone; the key goes in its own field.
error-remote-not-connected = the app is not connected to a team server
error-remote-not-connected-suggestion = Connect to one in Settings, or reload the window to work on this machine's database.
error-remote-unreachable = the team server at { $url } cannot be reached: { $detail }
error-remote-unreachable-suggestion = Check the URL and your network, and that `agenteval serve` runs there; or switch back to this machine's database in Settings.
error-remote-status = the team server answered HTTP { $status }
error-remote-status-suggestion = Retry; if it persists, see the server's log.

## Comparing two campaigns
error-compare-same = a campaign cannot be compared with itself
error-compare-same-suggestion = Pick another campaign of the same target as the baseline.
error-compare-other-target = "{ $current }" and "{ $baseline }" evaluate different targets; only campaigns of one target compare
error-compare-other-target-suggestion = Pick a baseline among the campaigns of the same target.

## Drafting a regression scenario from a finding
error-regression-no-finding = the session has no judge finding at a turn to draft a regression scenario from
error-regression-no-finding-suggestion = Name a turn of the session (turn=N) to flag its reply yourself, or pick a session the judge found poor; its findings are in the session's drawer and the report's judge findings.
error-regression-turn = turn { $turn } is past the session's end: it has { $turns } user turns

## Saving a pack file among the user's packs
error-pack-file-name = "{ $pack }/{ $file }" is not a pack and file name that can be saved
error-pack-file-name-suggestion = Name the pack with letters, digits, "_", "-" or "." (e.g. regressions) and the file likewise, ending in .yaml.
error-pack-file-invalid = the pack file does not load: { $errors }
error-pack-file-line = the pack file does not load: { $file }, line { $line }: { $problem }{ $more }
error-pack-file-more = {" "}(and { $count ->
    [one] 1 more problem
   *[other] { $count } more problems
})
error-pack-file-invalid-suggestion = Fix the lines named (the format is in scenarios/README.md) and save again; nothing was written.
error-pack-file-duplicate = scenario id "{ $id }" is already used by { $other }
error-pack-file-duplicate-suggestion = Give the scenario another id, or edit that file instead.
error-pack-file-too-long = the pack file has { $chars } characters; at most { $max } are saved through the API
error-pack-file-too-long-suggestion = Split it into several files, or put it in the pack folder yourself.
error-mcp-missing-argument = the argument `{ $field }` is missing
error-mcp-bad-arguments = the arguments cannot be read: { $detail }
error-mcp-arguments-suggestion = Give every argument the tool's input schema requires, each of the type it names.

error-reason-target_error = target error
error-reason-interrupted = interrupted
error-reason-window_ended = window ended
error-reason-internal_error = internal error
error-reason-workspace_error = workspace error
error-reason-storage_error = storage error
error-reason-target_unavailable = target unavailable
error-reason-timeout = timeout
error-reason-error = error
run-error = { $kind }: { $detail }
workspace-copy-failed = the run's copy of the workspace could not be made: { $cause }
workspace-missing = the scenario's workspace folder `{ $folder }` is gone
error-campaign-tool-env-missing = no loaded scenario has the id `{ $id }`, so its tools cannot be offered to the exploration sessions
error-campaign-tool-env-no-tools = scenario `{ $id }` offers no tool the engine plays (no declared `responses`, no `workspace`)
error-campaign-tool-env-suggestion = Name a scenario whose tools declare responses or that has a workspace, such as one of the office pack's.
error-database-down = the database cannot be reached now; nothing was changed
error-database-down-suggestion = Send the same request again in a few seconds; the server reconnects by itself. If it lasts, check that the database is running.
error-database-full = the disk of the database is full; nothing was changed
error-database-full-suggestion = Free space on the disk of the data folder, then send the same request again; everything stored before is kept.
error-database-read-only = the database is read-only (saved data can still be read); nothing was changed
error-database-read-only-suggestion = Make the data folder and its database file writable for the user running AgentEval, then restart AgentEval and send the same request again; everything stored before is kept.
error-data-folder-read-only-empty = the data folder { $folder } is read-only and holds no database yet
error-data-folder-read-only-empty-suggestion = Choose a data folder this user can write (`--data-dir` or `AGENTEVAL_DATA_DIR`), or make this one writable.
error-data-folder-read-only-outdated = the data folder { $folder } is read-only, and its database was written by an older AgentEval: it needs upgrading once, which writes to it
error-data-folder-read-only-outdated-suggestion = Make the folder writable and start AgentEval once to upgrade it; it may be read-only again afterwards.
