import { mutationTarget } from './target.mjs';

/*
 * Where webhooks may go and how they are signed: the address policy and host resolution of
 * libs/bot-delivery, the signatures and the sealing context of the secret, and the dispatcher's
 * checks of each connection (sender-checks.ts; the rest of the sender is I/O, covered end to end).
 */
export default mutationTarget({
  name: 'bot-delivery',
  jestConfig: 'libs/bot-delivery/jest.config.ts',
  mutate: [
    'libs/bot-delivery/src/address-policy.ts',
    'libs/bot-delivery/src/host-resolver.ts',
    'libs/bot-delivery/src/signature.ts',
    'libs/bot-delivery/src/webhook-secret.ts',
    'apps/bot-dispatcher/src/delivery/sender-checks.ts',
  ],
  roots: ['<rootDir>', '<rootDir>/../../apps/bot-dispatcher/src/delivery'],
  testMatch: [
    '**/libs/bot-delivery/src/{address-policy,host-resolver,signature,webhook-secret}.spec.ts',
    '**/apps/bot-dispatcher/src/delivery/sender-checks.spec.ts',
  ],
});
