import { Badge, Button, Table, createTheme } from "@mantine/core";

// Words are never cut off: badges and buttons grow to their text and wrap
// it when their row is too narrow, instead of ending in an ellipsis.
export const theme = createTheme({
  primaryColor: "indigo",
  defaultRadius: "md",
  components: {
    Badge: Badge.extend({
      styles: {
        root: {
          height: "auto",
          minHeight: "var(--badge-height)",
          maxWidth: "100%",
          overflow: "visible",
          textTransform: "none",
          lineHeight: 1.35,
          paddingTop: 1,
          paddingBottom: 1,
        },
        // keep-all: a Chinese label breaks at its punctuation, not between any two characters.
        label: { whiteSpace: "normal", overflow: "visible", overflowWrap: "break-word", wordBreak: "keep-all" },
      },
    }),
    // Column headings break between words only (never "轮 / 数").
    Table: Table.extend({ styles: { th: { wordBreak: "keep-all" } } }),
    Button: Button.extend({
      styles: {
        root: { height: "auto", minHeight: "var(--button-height)", maxWidth: "100%" },
        inner: { minHeight: "var(--button-height)" },
        label: { whiteSpace: "normal", overflow: "visible", lineHeight: 1.25, paddingBlock: 4 },
      },
    }),
  },
});
