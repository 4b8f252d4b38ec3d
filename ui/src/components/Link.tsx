import { Anchor, type AnchorProps } from "@mantine/core";
import type { ReactNode } from "react";
import { href, navigate, type Route } from "../routing";

/** A link to a screen of the app (a real href: it can be opened or copied). */
export function Link({
  to,
  children,
  replace,
  ...rest
}: AnchorProps & { to: Route; children: ReactNode; replace?: boolean; "data-testid"?: string; title?: string }) {
  return (
    <Anchor
      href={href(to)}
      onClick={(e: React.MouseEvent) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        e.stopPropagation();
        navigate(to, { replace });
      }}
      {...rest}
    >
      {children}
    </Anchor>
  );
}
