import { Alert, Badge, Button, Drawer, Modal, Pagination, Table, createTheme, darken, luminance, type CSSVariablesResolver } from "@mantine/core";

/** WCAG contrast ratio of two colours. */
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * The lightest of `shades` (else a darkened last one) that reaches `ratio`
 * against white and each ratio of `on` against its background.
 */
function readable(shades: readonly string[], ratio: number, on: [background: string, ratio: number][] = []): string {
  const reads = (c: string) => [["#ffffff", ratio] as const, ...on].every(([bg, r]) => contrast(c, bg) >= r);
  const found = shades.find(reads);
  if (found) return found;
  let c = shades[shades.length - 1];
  for (let i = 0; i < 10 && !reads(c); i++) c = darken(c, 0.1);
  return c;
}

/**
 * Colours that read at WCAG AA (4.5:1 for text): Mantine's defaults put white
 * text on shade 6 (indigo 4.3:1, teal 2.6:1), orange outlines at 2.6:1 and
 * grey secondary text at 3.3:1. Every colour's filled, outline and text
 * shade becomes the lightest one from shade 7 up that reaches 4.5:1 on
 * white, and the text of light badges and of light and subtle buttons one
 * that reaches 6:1 on white and 4.6:1 on shade 2, the tint a light button
 * takes under the pointer (shade 8 on indigo's shade 2 was 4.1:1).
 */
export const cssVariables: CSSVariablesResolver = (theme) => {
  const light: Record<string, string> = {
    "--mantine-color-dimmed": "var(--mantine-color-gray-7)",
    "--mantine-color-placeholder": "var(--mantine-color-gray-7)",
  };
  for (const [name, shades] of Object.entries(theme.colors)) {
    if (name === "dark") continue;
    const strong = readable(shades.slice(7), 4.6);
    light[`--mantine-color-${name}-filled`] = strong;
    light[`--mantine-color-${name}-filled-hover`] = darken(strong, 0.1);
    light[`--mantine-color-${name}-outline`] = strong;
    light[`--mantine-color-${name}-text`] = strong;
    light[`--mantine-color-${name}-light-color`] = readable(shades.slice(8), 6, [[shades[2], 4.6]]);
  }
  const primary = theme.colors[theme.primaryColor];
  light["--mantine-color-anchor"] = readable(primary.slice(7), 4.6);
  light["--mantine-primary-color-filled"] = `var(--mantine-color-${theme.primaryColor}-filled)`;
  light["--mantine-primary-color-filled-hover"] = `var(--mantine-color-${theme.primaryColor}-filled-hover)`;
  return { variables: {}, light, dark: {} };
};

// Words are never cut off: badges and buttons grow to their text and wrap
// it when their row is too narrow, instead of ending in an ellipsis.
/** What the theme's icon-only controls are called, in the UI's language. */
export type ControlLabels = { close: string; page: (n: number) => string; first: string; previous: string; next: string; last: string };

/** The theme, with names for the controls that show only an icon. */
export function makeTheme(labels: ControlLabels) {
  return createTheme({
    primaryColor: "indigo",
    // Drawers, modals and menus open without animation when the system asks for reduced motion.
    respectReducedMotion: true,
    defaultRadius: "md",
    components: {
      Modal: Modal.extend({ defaultProps: { closeButtonProps: { "aria-label": labels.close } } }),
      Drawer: Drawer.extend({ defaultProps: { closeButtonProps: { "aria-label": labels.close } } }),
      Alert: Alert.extend({ defaultProps: { closeButtonLabel: labels.close } }),
      Pagination: Pagination.extend({
        defaultProps: {
          getItemProps: (page: number) => ({ "aria-label": labels.page(page) }),
          getControlProps: (control: "first" | "previous" | "last" | "next") => ({ "aria-label": labels[control] }),
        },
      }),
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
}
