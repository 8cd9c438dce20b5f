// Builds the console into web/dist, which the web listener serves (src/proxy/web/static-files.ts).
// Hashed file names under /assets/ let the server cache them for a year; index.html is never cached.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  // The console's client is the SDK's source (src/sdk), bundled here; web/tsconfig.json maps the same name.
  resolve: { alias: { 'gatehouse/sdk': fileURLToPath(new URL('../src/sdk/index.ts', import.meta.url)) } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // .vite/manifest.json tells scripts/build-web.mjs which chunks the first page load needs.
    manifest: true,
    // Sizes are reported by scripts/build-web.mjs (gzipped, first load vs lazy chunks).
    reportCompressedSize: false,
    chunkSizeWarningLimit: 1024,
  },
  server: {
    // `npm run web:dev`: the API and the cookie exchange come from a running Gatehouse.
    proxy: { '/v1': 'http://127.0.0.1:3080', '/webapi': 'http://127.0.0.1:3080' },
  },
});
