// Two validators: request bodies are JSON and validated strictly (no type coercion: "5" is not 5);
// query strings and path parameters are text, so they are coerced to the declared types.
import { createRequire } from 'node:module';
import { Ajv, type Options } from 'ajv';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS with a default export; require() gives the same function on every Node.
const addFormats = createRequire(import.meta.url)('ajv-formats') as typeof import('ajv-formats').default;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({
    removeAdditional: false,
    useDefaults: true,
    allErrors: true,
    strict: false,
    ...options,
  });
  addFormats(ajv, ['date-time', 'uri', 'email']);
  return ajv;
}

export function createValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const strict = makeAjv({ coerceTypes: false });
  const coercing = makeAjv({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema as object);
}
