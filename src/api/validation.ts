// Two validators: request bodies are JSON and validated strictly (no type coercion: "5" is not 5);
// query strings and path parameters are text, so they are coerced to the declared types.
import { createRequire } from 'node:module';
import { Ajv, type Options } from 'ajv';
import type { FastifySchema, FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';

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
  return ({ schema, httpPart }) => {
    if (httpPart === 'body') return strict.compile(schema as object);
    const validate = coercing.compile(schema as object) as Validate;
    return httpPart === 'querystring' ? decimalIntegersOnly(schema as JsonObject, validate) : validate;
  };
}

type JsonObject = { properties?: Record<string, { type?: string; items?: { type?: string } }> };
type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

// Coercion turns any text Number() accepts into an integer: 0x10, 1e3, " 10". A query integer is
// decimal digits only; anything else is refused before coercion can reinterpret it.
const DECIMAL = /^-?[0-9]+$/;
function decimalIntegersOnly(schema: JsonObject, validate: Validate): Validate {
  const integers = Object.entries(schema.properties ?? {})
    .filter(([, s]) => s.type === 'integer' || s.items?.type === 'integer')
    .map(([name]) => name);
  if (integers.length === 0) return validate;
  const checked: Validate = (data) => {
    const query = data as Record<string, unknown>;
    for (const name of integers) {
      const raw = query[name];
      const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
      if (values.some((v) => typeof v === 'string' && !DECIMAL.test(v))) {
        checked.errors = [
          {
            instancePath: `/${name}`,
            schemaPath: `#/properties/${name}/type`,
            keyword: 'type',
            params: {},
            message: 'must be an integer in decimal digits',
          },
        ];
        return false;
      }
    }
    const ok = validate(data);
    checked.errors = validate.errors;
    return ok;
  };
  return checked;
}
