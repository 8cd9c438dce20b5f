import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../../auth/principal.js';
import { ADMISSION_TTL_MS, type Admitted, admissionKey, createKubeAdmissions } from './kube-admissions.js';
import type { KubeRequestInfo } from './kube-request.js';

const list: KubeRequestInfo = { verb: 'list', discovery: false, resource: 'pods', namespace: 'default' };
const admitted = { ok: true } as Admitted;

test('an admission is reused for at most ADMISSION_TTL_MS, then decided again', () => {
  let now = 1_000_000;
  const admissions = createKubeAdmissions(() => now);
  const p = {} as Principal;
  const key = admissionKey('kube_1', undefined, list);
  admissions.set(p, key, admitted);
  now += ADMISSION_TTL_MS - 1;
  assert.equal(admissions.get(p, key), admitted, 'control: within the bound it is reused');
  now += 1;
  assert.equal(admissions.get(p, key), undefined);
});

test('another principal object (the state moved), cluster, --as or object is another admission', () => {
  const admissions = createKubeAdmissions(() => 0);
  const p = {} as Principal;
  const key = admissionKey('kube_1', undefined, list);
  admissions.set(p, key, admitted);
  assert.equal(admissions.get(p, key), admitted, 'control');
  assert.equal(admissions.get({} as Principal, key), undefined);
  for (const other of [
    admissionKey('kube_2', undefined, list),
    admissionKey('kube_1', 'alice', list),
    admissionKey('kube_1', undefined, { ...list, namespace: 'kube-system' }),
    admissionKey('kube_1', undefined, { ...list, verb: 'watch' }),
    admissionKey('kube_1', undefined, { ...list, name: 'web-1', verb: 'get' }),
    admissionKey('kube_1', undefined, { ...list, subresource: 'exec' }),
  ])
    assert.equal(admissions.get(p, other), undefined, other);
});
