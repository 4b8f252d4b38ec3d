import { Tooltip } from "@mantine/core";
import type { ReactElement } from "react";

/**
 * A control that may be disabled, with why: the reason shows on hover and
 * focus, and is the control's description for a screen reader.
 */
export function WhyDisabled({ reason, testId, children }: { reason: string | null; testId: string; children: ReactElement }) {
  if (!reason) return children;
  return (
    <Tooltip label={reason} multiline w={260} withArrow>
      <span tabIndex={0} role="group" aria-label={reason} data-testid={testId} data-reason={reason} style={{ display: "inline-block" }}>
        {children}
      </span>
    </Tooltip>
  );
}
