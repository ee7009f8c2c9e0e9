/**
 * The browser hub's build: web/ → dist/web/ (index.html + hashed assets), served by the daemon at
 * `/`. Relative asset paths, so that the hub also works under a tunnel's path prefix.
 */
import { defineConfig } from "vite";

export default defineConfig({
  root: "web",
  base: "./",
  publicDir: false,
  build: {
    outDir: "../dist/web",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    chunkSizeWarningLimit: 1000,
  },
});
