import "@mantine/core/styles.css";
import "@mantine/charts/styles.css";
import "./i18n";
import { MantineProvider, createTheme } from "@mantine/core";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";

const theme = createTheme({ primaryColor: "indigo", defaultRadius: "md" });

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <MantineProvider theme={theme} defaultColorScheme="light">
        <App />
      </MantineProvider>
    </StrictMode>,
  );
}
