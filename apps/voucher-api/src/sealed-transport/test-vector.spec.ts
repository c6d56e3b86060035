import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactDecrypt, importJWK, type KeyLike } from 'jose';
import { loadConfig } from '@app/platform';
import { VoucherConfig } from '../config/voucher.config';
import { SealCipher } from './seal-cipher';
import { DEV_SEALING_KEY } from '../config/sealing-keys';

const DOC = readFileSync(join(__dirname, '../../../../docs/sealed-transport.md'), 'utf8');

/** The fenced block whose info string names `name` (```json service-key). */
function block(name: string): string {
  const match = new RegExp(`^\`\`\`\\w+ ${name}\\n([\\s\\S]*?)\\n\`\`\`$`, 'm').exec(DOC);
  if (!match) throw new Error(`docs/sealed-transport.md has no block "${name}"`);
  return match[1];
}

describe('the test vector of docs/sealed-transport.md', () => {
  it('names the development key as the service key', () => {
    const { kid, ...jwk } = JSON.parse(block('service-key'));
    expect(kid).toBe(DEV_SEALING_KEY.kid);
    expect(jwk).toEqual(DEV_SEALING_KEY.jwk);
  });

  it("the sealed call opens with the service's own code (development key) to the documented plaintext", async () => {
    const cipher = new SealCipher(loadConfig(VoucherConfig, { NODE_ENV: 'test', SEALED_TRANSPORT: 'optional' }));
    const plaintext = await cipher.open(block('sealed-call'));
    expect(JSON.parse(Buffer.from(plaintext).toString('utf8'))).toEqual(JSON.parse(block('sealed-call-plaintext')));
  });

  it('the sealed answer opens with the answer key, algorithms pinned, to the documented plaintext', async () => {
    const answerKey = (await importJWK(JSON.parse(block('answer-key')), 'ECDH-ES+A256KW')) as KeyLike;
    const { plaintext, protectedHeader } = await compactDecrypt(block('sealed-answer'), answerKey, {
      keyManagementAlgorithms: ['ECDH-ES+A256KW'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    expect(protectedHeader).toMatchObject({ alg: 'ECDH-ES+A256KW', enc: 'A256GCM' });
    expect(JSON.parse(Buffer.from(plaintext).toString('utf8'))).toEqual(JSON.parse(block('sealed-answer-plaintext')));
  });

  it('the answer key in the vector is the response_key of the call', () => {
    const { d, ...publicPart } = JSON.parse(block('answer-key'));
    expect(d).toEqual(expect.any(String));
    expect(JSON.parse(block('sealed-call-plaintext')).response_key).toEqual(publicPart);
  });
});

/** A python3 that has jwcrypto (Debian's python3-jwcrypto), or none: the Python steps are then skipped. */
const python = ['python3', '/usr/bin/python3'].find(
  (candidate) => spawnSync(candidate, ['-c', 'import jwcrypto'], { stdio: 'ignore' }).status === 0,
);

describe('the Python sealing steps of docs/sealed-transport.md (need python3 with jwcrypto)', () => {
  (python ? it : it.skip)("open the vector's sealed answer, and seal a call that the service opens", async () => {
    const program = `${block('sealing')}
import sys
vector = json.loads(sys.argv[1])
print(json.dumps(open_answer(vector["answer"], jwk.JWK(**vector["answer_key"]))))
service = {k: v for k, v in vector["service_key"].items() if k != "d"}
print(seal_call(vector["call"], jwk.JWK(**service)))
`;
    const vector = {
      answer: block('sealed-answer'),
      answer_key: JSON.parse(block('answer-key')),
      service_key: JSON.parse(block('service-key')),
      call: JSON.parse(block('sealed-call-plaintext')),
    };
    const [opened, sealed] = execFileSync(python!, ['-c', program, JSON.stringify(vector)], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(JSON.parse(opened)).toEqual(JSON.parse(block('sealed-answer-plaintext')));
    const cipher = new SealCipher(loadConfig(VoucherConfig, { NODE_ENV: 'test', SEALED_TRANSPORT: 'optional' }));
    expect(JSON.parse(Buffer.from(await cipher.open(sealed)).toString('utf8'))).toEqual(vector.call);
  });
});
