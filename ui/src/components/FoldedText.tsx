import { Button, Code } from "@mantine/core";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { num } from "./format";

/** Lines shown of a folded text. */
const SHOWN_LINES = 6;
/** Folding a text only two lines longer than what stays visible hides too little to be worth a click. */
const FOLD_OVER_LINES = SHOWN_LINES + 2;
/** A long line wraps into many: a text over this many characters folds too. */
const SHOWN_CHARS = 480;

/**
 * A preformatted text (formatted JSON, a tool's answer) that shows its
 * first lines and folds the rest behind a button. `label` names what the
 * text is, for the button's accessible name ("Step 2, arguments: show all").
 */
export function FoldedText({ text, label, testId }: { text: string; label: (action: string) => string; testId: string }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const id = useId();
  const lines = text.split("\n");
  const manyLines = lines.length > FOLD_OVER_LINES;
  const long = manyLines || text.length > SHOWN_CHARS + 120;
  let shown = text;
  if (long && !open) {
    shown = lines.slice(0, SHOWN_LINES).join("\n");
    if (shown.length > SHOWN_CHARS) shown = shown.slice(0, SHOWN_CHARS);
    shown += " …";
  }
  const action = open
    ? t("steps.showLess")
    : manyLines
      ? t("steps.showAll", { n: num(lines.length) })
      : t("steps.showAllChars", { n: num(text.length) });
  return (
    <div>
      <Code
        block
        id={id}
        data-testid={testId}
        data-folded={long && !open ? "true" : "false"}
        style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere", fontSize: "var(--mantine-font-size-xs)" }}
      >
        {shown}
      </Code>
      {long && (
        <Button
          variant="subtle"
          size="compact-xs"
          mt={2}
          aria-expanded={open}
          aria-controls={id}
          aria-label={label(action)}
          data-testid={`${testId}-fold`}
          onClick={() => setOpen((o) => !o)}
        >
          {action}
        </Button>
      )}
    </div>
  );
}
