# Issues the built-in virtual user reports, one phrasing each; a count is
# the range seen across the sessions that reported it.

issue-target_empty_reply = target gave an empty reply
issue-target_repeated_reply = target repeated the same reply
issue-target_refused = target refused or said it could not help
issue-kept_asking_after_everything_given = kept asking after I had given everything
issue-asked_twice = asked for the { $slot } twice
issue-ignored_correction = reply ignored my correction of the { $slot }
issue-done_before_given = said it was done before I gave the { $slot }
issue-unverified_figure = stated a figure ({ $figure }) that is not in anything I gave
issue-gave_up = gave up after { $count } unhelpful replies
issue-out_of_turns = ran out of turns before the goal was met
issue-target_stopped_answering = the target stopped answering
issue-budget_cut_short = the exploration budget cut the session short

slot-to = recipient
slot-subject = subject
slot-body = body
slot-date = date
slot-time = time
slot-city = city
slot-amount = amount
slot-name = name
slot-phone = phone number
slot-order_id = order number
slot-cc = cc
slot-unnamed = detail it needed

# The built-in virtual user's notes on its session, in the persona's language.
user-notes = { $persona } ({ $strategy }) goal "{ $goal }": { $achieved } after { $turns } turns, ended by { $end }.{ $changed }
user-notes-changed = {" "}Changed my mind about the { $slot }: { $old } → { $new }.
user-notes-achieved = achieved
user-notes-not-achieved = not achieved
strategy-persistent = persistent
strategy-rephrase = rephrases
strategy-escalate = escalates

# Why the platform ended a session as failed.
session-user-broke-off = the virtual user could not finish the session

# The virtual user or the judge could not do its part.
user-model-failed = the virtual user's model failed: { $detail }
user-model-malformed = the virtual user's model gave unusable output twice: { $detail }
user-model-said-nothing = the virtual user chose to go on but said nothing
user-could-not-continue = The virtual user could not continue: { $problem }
judge-model-failed = the judge's model failed: { $detail }
judge-model-malformed = the judge's model gave unusable output twice: { $detail }
