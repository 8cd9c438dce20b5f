// The signed-in user's own API keys (profile page): the shared API-keys list over /v1/users/me/api-keys.
import { api, ok } from '../api/client';
import { ApiKeys } from './api-keys';

export function MyApiKeys() {
  return (
    <ApiKeys
      queryKey={['my-api-keys']}
      canUpdate
      list={() => ok(api.GET('/v1/users/me/api-keys'))}
      create={(name) => ok(api.POST('/v1/users/me/api-keys', { body: { name } }))}
      remove={(keyId) => ok(api.DELETE('/v1/users/me/api-keys/{key_id}', { params: { path: { key_id: keyId } } }))}
    />
  );
}
