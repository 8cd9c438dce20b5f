// Builds the API in memory (temporary data dir, no listener) and returns its OpenAPI document.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { buildApi } from '../src/api/build-api.js';
import { openSqliteAuditStore } from '../src/audit/sqlite.js';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import { loadConfig } from '../src/config/load.js';
import { VERSION } from '../src/server.js';
import { createServices } from '../src/services.js';

export async function generateOpenApi(): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-openapi-'));
  const backend = openSqliteBackend({ path: join(dir, 'state.db') });
  const auditStore = openSqliteAuditStore({ path: join(dir, 'audit.db') });
  try {
    const services = await createServices({
      config: loadConfig({ env: {}, overrides: { data_dir: dir } }),
      backend,
      auditStore,
      clock: Date.now,
    });
    const { app } = await buildApi(services, {
      listener: 'auth',
      logger: pino({ level: 'silent' }),
      version: VERSION,
      startedAt: 0,
    });
    const doc = app.swagger();
    await app.close();
    services.close();
    return doc;
  } finally {
    await auditStore.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
