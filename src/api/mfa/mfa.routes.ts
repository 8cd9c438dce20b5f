// Security keys and passkeys over /v1: a person manages their own under /v1/users/me/mfa/devices
// (registering one is a WebAuthn ceremony, so in practice the console does it); an administrator
// who covers a person lists and removes theirs under /v1/users/{id}/mfa/devices (recovery).
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { GatehouseError } from '../../lib/errors.js';
import type { MfaService } from '../../mfa/mfa-service.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { authenticatedContext } from '../request-context.js';
import {
  MfaDevice,
  MfaDeviceList,
  OwnDeviceParams,
  RegisterDevice,
  RemovedDevices,
  RenameDevice,
  UserParams,
  WebAuthnOptions,
} from './mfa.schema.js';

const OWN = '/v1/users/me/mfa/devices';

/** The calling person's id: agents have no security keys. */
function me(request: FastifyRequest) {
  const ctx = authenticatedContext(request);
  if (ctx.principal.kind !== 'user')
    throw new GatehouseError('forbidden', 'security keys belong to people; an agent has none');
  return { ctx, userId: ctx.principal.id };
}

export function mfaRoutes(app: App, deps: { mfa: MfaService }): void {
  const { mfa } = deps;
  const own = declareRoutes(app, { tags: ['security keys'] });

  own.get(
    OWN,
    { permission: 'authenticated', summary: 'List your security keys and passkeys', 200: MfaDeviceList },
    async (request) => mfa.list(me(request).userId),
  );

  own.post(
    `${OWN}/options`,
    {
      permission: 'authenticated',
      grants: ['self'],
      summary:
        'Start registering a security key: options for navigator.credentials.create() (challenge valid 2 min, once)',
      noStore: true,
      200: WebAuthnOptions,
    },
    async (request) => mfa.registrationOptions(me(request).userId),
  );

  own.post(
    OWN,
    {
      permission: 'authenticated',
      grants: ['self'],
      summary: 'Register a security key or passkey: the browser’s answer to the options, and a name',
      body: RegisterDevice,
      201: MfaDevice,
    },
    async (request) => {
      const { ctx, userId } = me(request);
      const { name, response } = request.body;
      return mfa.register(ctx, userId, { name, response: response as unknown as RegistrationResponseJSON });
    },
  );

  own.patch(
    `${OWN}/:device_id`,
    {
      permission: 'authenticated',
      grants: [],
      summary: 'Rename one of your security keys',
      params: OwnDeviceParams,
      body: RenameDevice,
      200: MfaDevice,
    },
    async (request) => {
      const { ctx, userId } = me(request);
      return mfa.rename(ctx, userId, request.params.device_id, request.body.name);
    },
  );

  own.delete(
    `${OWN}/:device_id`,
    {
      permission: 'authenticated',
      grants: [],
      summary: 'Remove one of your security keys',
      params: OwnDeviceParams,
      204: Type.Null(),
    },
    async (request) => {
      const { ctx, userId } = me(request);
      await mfa.removeOwn(ctx, userId, request.params.device_id);
    },
  );

  const admin = declareRoutes(app, { tags: ['users'], resource: 'users' });
  const base = '/v1/users/:id/mfa/devices';

  admin.get(
    base,
    { permission: 'read', summary: 'List the security keys of a user', params: UserParams, 200: MfaDeviceList },
    async (request) => mfa.list(request.params.id),
  );

  admin.delete(
    base,
    {
      permission: 'update',
      grants: ['target-principal'],
      summary: 'Remove every security key of a user (recovery: they register a new one at their next sign-in)',
      params: UserParams,
      200: RemovedDevices,
    },
    async (request) => mfa.removeFor(authenticatedContext(request), request.params.id),
  );
}
