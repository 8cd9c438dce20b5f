// Browser tests of the console: Debian's Chromium (never a downloaded browser) against a real
// Gatehouse and a real sshd that e2e/global-setup.ts starts. `npm test` runs them.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: './e2e',
  outputDir: '../test-results/web',
  globalSetup: './e2e/global-setup.ts',
  // One Gatehouse, one browser at a time: the machine has two cores and the specs share the server.
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    headless: true,
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      // This machine's network is closed: without these, Chromium keeps trying to reach Google.
      args: [
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    screenshot: 'only-on-failure',
    trace: 'off',
  },
});
