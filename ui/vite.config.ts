import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// In browser mode the UI is served by `agenteval serve` from ui/dist; during
// development `/api` is proxied to a local server started separately.
export default defineConfig({
  plugins: [react()],
  clearScreen: false,
  server: {
    host: "127.0.0.1",
    port: 5173,
    strictPort: true,
    proxy: { "/api": "http://127.0.0.1:8787" },
    // The engine's message catalogue (crates/domain/locales) is read
    // from the workspace.
    fs: { allow: [".."] },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
  },
});
