/// <reference types="vitest/config" />
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

// Vite empties dist/ on every build; the Go binary embeds frontend/dist and
// git keeps the folder through dist/.gitkeep, so put it back.
function keepDist(): Plugin {
  return {
    name: 'reprise-keep-dist',
    apply: 'build',
    closeBundle() {
      writeFileSync(fileURLToPath(new URL('./dist/.gitkeep', import.meta.url)), '');
    },
  };
}

// `npm run dev` against a running host: REPRISE_DEV_TARGET=http://127.0.0.1:PORT,
// then open http://localhost:5173/#token=TOKEN. The proxy presents the host's
// own Host and Origin (the host refuses any other: docs/security.md).
const devTarget = process.env.REPRISE_DEV_TARGET;

export default defineConfig({
  // Relative asset URLs: served by Wails' asset server and by `reprise serve` at /.
  base: './',
  plugins: [react(), keepDist()],
  // One bundle, loaded from disk or loopback: size warnings do not apply.
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 2000 },
  // The socket worker under a fixed name: public/early-keys.js starts it before the bundle runs.
  worker: { rollupOptions: { output: { entryFileNames: 'assets/socket-worker.js' } } },
  server: devTarget
    ? { proxy: { '/ws': { target: devTarget, ws: true, changeOrigin: true, headers: { Origin: devTarget } } } }
    : undefined,
  test: { environment: 'node', include: ['src/**/*.test.ts'] },
});
