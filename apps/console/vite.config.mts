import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

// The console's static build into dist/console. `outDir` is overridden by the bundle-budget test.
export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Modulepreload's polyfill is an inline-free module in the entry chunk; no inline script under the CSP.
    modulePreload: { polyfill: false },
  },
});
