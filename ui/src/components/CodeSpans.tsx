import { Code } from "@mantine/core";
import { Fragment } from "react";

/**
 * Text with its `code spans` (as the engine's catalogue marks names that
 * stay as they are: a format, a field) shown as code, without the quotes.
 */
export function CodeSpans({ text }: { text: string }) {
  const parts = text.split(/`([^`]+)`/);
  return (
    <>
      {parts.map((p, i) => (i % 2 === 1 ? <Code key={i}>{p}</Code> : <Fragment key={i}>{p}</Fragment>))}
    </>
  );
}
