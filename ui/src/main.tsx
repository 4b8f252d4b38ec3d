import "@mantine/core/styles.css";
import "@mantine/charts/styles.css";
import "./i18n";
import { MantineProvider } from "@mantine/core";
import { StrictMode, useMemo } from "react";
import { createRoot } from "react-dom/client";
import { useTranslation } from "react-i18next";
import { startApi } from "./api";
import { App } from "./App";
import { cssVariables, makeTheme } from "./components/theme";

/** The app in its theme, whose control names follow the language. */
function Root() {
  const { t, i18n } = useTranslation();
  const theme = useMemo(
    () =>
      makeTheme({
        close: t("common.close"),
        page: (n) => t("common.page", { n }),
        first: t("common.firstPage"),
        previous: t("common.previousPage"),
        next: t("common.nextPage"),
        last: t("common.lastPage"),
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [i18n.language],
  );
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariables} defaultColorScheme="light">
      <App />
    </MantineProvider>
  );
}

const root = document.getElementById("root");
// The backend is chosen first: the desktop app may work on a team server.
void startApi().then(() => {
  if (root) {
    createRoot(root).render(
      <StrictMode>
        <Root />
      </StrictMode>,
    );
  }
});
