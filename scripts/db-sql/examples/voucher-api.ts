import type { ClaimValues } from '@app/idempotency';
import { AllocationsStore } from '../../../apps/voucher-api/src/allocations/allocations.store';
import { SendsStore } from '../../../apps/voucher-api/src/allocations/sends.store';
import { AppTokensStore } from '../../../apps/voucher-api/src/app-tokens/app-tokens.store';
import { ApplicationsStore } from '../../../apps/voucher-api/src/applications/applications.store';
import { TemplateFields, TemplatesStore } from '../../../apps/voucher-api/src/templates/templates.store';
import { AuthorizationsStore } from '../../../apps/voucher-api/src/authorizations/authorizations.store';
import { BotBindingsStore } from '../../../apps/voucher-api/src/bot-bindings/bot-bindings.store';
import { SealedRequestIdsStore } from '../../../apps/voucher-api/src/sealed-transport/sealed-request-ids.store';
import { RedemptionsStore } from '../../../apps/voucher-api/src/redemptions/redemptions.store';
import { UsersStore } from '../../../apps/voucher-api/src/users/users.store';
import { VouchersStore } from '../../../apps/voucher-api/src/vouchers/vouchers.store';
import { store, type StoreExamples } from '../example-types';

const APPLICATION = '11111111-1111-4111-8111-111111111111';
const TEMPLATE = '22222222-2222-4222-8222-222222222222';
const VOUCHER = '33333333-3333-4333-8333-333333333333';
const REDEMPTION = '44444444-4444-4444-8444-444444444444';
const SEND = '55555555-5555-4555-8555-555555555555';
const AT = new Date('2026-01-01T00:00:00.000Z');
const QR = { type: 'qr_token', hash: 'qr-token-hash' } as const;
const CODE = { type: 'redeem_code', hash: 'code-hash' } as const;
const CLAIM: ClaimValues = {
  scope: `app:${APPLICATION}`,
  key: 'idempotency-key',
  route: 'POST /redemptions',
  fingerprint: 'body-fingerprint',
  lockToken: '66666666-6666-4666-8666-666666666666',
  ttlMs: 86_400_000,
  lockTimeoutMs: 30_000,
  lockId: '-1234567890123456789',
};
const ALLOCATION = '77777777-7777-4777-8777-777777777777';
const TOKEN = '88888888-8888-4888-8888-888888888888';
const PAGE = { page: 3, pageSize: 20, offset: 40 };
const TEMPLATE_FIELDS: TemplateFields = {
  applicationId: APPLICATION,
  externalTemplateId: 'template-1',
  name: 'Coffee',
  type: 'gift',
  issuerName: 'Cafe',
  fulfillerName: 'Cafe',
  fulfillmentCategory: 'physical_goods',
  acquisitionSource: 'free',
  validFrom: null,
  validTo: null,
  daysAfterClaim: 30,
  issueLimit: 100,
  perUserLimit: 1,
  description: null,
  coverFileId: null,
  usageRules: { stores: ['store-1'] },
  fulfillment: { open_mode: 'in_app' },
  terms: null,
  status: 'draft',
  rejectionReason: null,
  submittedAt: null,
  reviewedAt: null,
};
const FACTS = { externalOrderId: 'order-1', storeId: 'store-1', operatorId: null, occurredAt: AT };

export const STORE_EXAMPLES: readonly StoreExamples[] = [
  store<VouchersStore>({
    file: 'apps/voucher-api/src/vouchers/vouchers.store.ts',
    create: (recorder) => new VouchersStore(recorder.asDatabase()),
    examples: [
      { method: 'findByCredential (QR token)', run: (s, tx) => s.findByCredential(tx, APPLICATION, QR) },
      { method: 'findByCredential (code)', run: (s, tx) => s.findByCredential(tx, APPLICATION, CODE) },
      { method: 'verify (QR token)', run: (s) => s.verify(APPLICATION, QR) },
      { method: 'verify (code)', run: (s) => s.verify(APPLICATION, CODE) },
      {
        method: 'claimAndCheckIssue',
        run: (s, tx) =>
          s.claimAndCheckIssue(tx, {
            ...CLAIM,
            applicationId: APPLICATION,
            templateId: TEMPLATE,
            recipient: 'user-1',
            externalIssueId: 'issue-1',
          }),
      },
      {
        method: 'insert',
        run: (s, tx) =>
          s.insert(tx, {
            id: VOUCHER,
            applicationId: APPLICATION,
            templateId: TEMPLATE,
            recipientUserId: 'user-1',
            externalIssueId: 'issue-1',
            validFrom: AT,
            validTo: AT,
            issuedAt: AT,
            qrTokenHash: 'qr-token-hash',
            qrTokenEnc: 'qr-token-sealed',
            codeHash: 'code-hash',
            codeEnc: 'code-sealed',
            sendId: SEND,
          }),
      },
      { method: 'revoke', run: (s, tx) => s.revoke(tx, APPLICATION, VOUCHER) },
      { method: 'lock', run: (s, tx) => s.lock(tx, VOUCHER) },
      { method: 'get', run: (s, tx) => s.get(tx, VOUCHER) },
      { method: 'unredeem', run: (s, tx) => s.unredeem(tx, VOUCHER, 'available') },
      { method: 'codeTakenByAnother', run: (s, tx) => s.codeTakenByAnother(tx, VOUCHER, APPLICATION) },
      { method: 'liveCodeTaken', run: (s, tx) => s.liveCodeTaken(tx, APPLICATION, 'code-hash') },
      { method: 'replaceCode', run: (s, tx) => s.replaceCode(tx, VOUCHER, 'code-hash', 'code-sealed') },
      { method: 'listForHolder', run: (s) => s.listForHolder('user-1', 20, 40) },
    ],
  }),
  store<RedemptionsStore>({
    file: 'apps/voucher-api/src/redemptions/redemptions.store.ts',
    create: (recorder) => new RedemptionsStore(recorder.asDatabase()),
    examples: [
      { method: 'redeem (QR token)', run: (s, tx) => s.redeem(tx, APPLICATION, QR, FACTS, CLAIM) },
      { method: 'redeem (code)', run: (s, tx) => s.redeem(tx, APPLICATION, CODE, FACTS, CLAIM) },
      { method: 'find', run: (s) => s.find(APPLICATION, REDEMPTION) },
      { method: 'lock', run: (s, tx) => s.lock(tx, APPLICATION, REDEMPTION) },
      {
        method: 'reverse',
        run: (s, tx) =>
          s.reverse(
            tx,
            {
              ...FACTS,
              id: REDEMPTION,
              voucherId: VOUCHER,
              status: 'succeeded',
              createdAt: AT,
              applicationId: APPLICATION,
            },
            'refund',
            'operator-1',
          ),
      },
    ],
  }),
  store<UsersStore>({
    file: 'apps/voucher-api/src/users/users.store.ts',
    create: (recorder) => new UsersStore(recorder.asDatabase()),
    examples: [
      { method: 'upsert', run: (s) => s.upsert('user-1', 'Ada') },
      { method: 'exists', run: (s, tx) => s.exists(tx, 'user-1') },
      { method: 'search', run: (s) => s.search('ada', 20) },
    ],
  }),
  store<AuthorizationsStore>({
    file: 'apps/voucher-api/src/authorizations/authorizations.store.ts',
    create: (recorder) => new AuthorizationsStore(recorder.asDatabase()),
    examples: [
      { method: 'list', run: (s) => s.list('user-1') },
      { method: 'find', run: (s, tx) => s.find(tx, 'user-1', APPLICATION) },
      { method: 'insert', run: (s, tx) => s.insert(tx, 'user-1', APPLICATION) },
      { method: 'delete', run: (s, tx) => s.delete(tx, 'user-1', APPLICATION) },
    ],
  }),
  store<BotBindingsStore>({
    file: 'apps/voucher-api/src/bot-bindings/bot-bindings.store.ts',
    create: () => new BotBindingsStore(),
    examples: [
      { method: 'bind', run: (s, tx) => s.bind(tx, APPLICATION, '0123456789abcdef01234567') },
      { method: 'find', run: (s, tx) => s.find(tx, APPLICATION, '0123456789abcdef01234567') },
      { method: 'delete', run: (s, tx) => s.delete(tx, APPLICATION, '0123456789abcdef01234567') },
    ],
  }),
  store<SealedRequestIdsStore>({
    file: 'apps/voucher-api/src/sealed-transport/sealed-request-ids.store.ts',
    create: (recorder) => new SealedRequestIdsStore(recorder.asDatabase()),
    examples: [
      { method: 'seen', run: (s) => s.seen('seal-id-1') },
      { method: 'admit', run: (s) => s.admit('seal-id-1', 1767225600, 300) },
    ],
  }),
  store<ApplicationsStore>({
    file: 'apps/voucher-api/src/applications/applications.store.ts',
    create: (recorder) => new ApplicationsStore(recorder.asDatabase()),
    examples: [
      { method: 'listOwned', run: (s) => s.listOwned('owner-1') },
      {
        method: 'insert',
        run: (s, tx) =>
          s.insert(tx, {
            ownerId: 'owner-1',
            name: 'Shop',
            description: null,
            allowedOrigins: ['*'],
            status: 'active',
            features: { vouchers: true },
          }),
      },
      { method: 'findOwned', run: (s, tx) => s.findOwned(tx, 'owner-1', APPLICATION) },
      { method: 'findOwned (locked)', run: (s, tx) => s.findOwned(tx, 'owner-1', APPLICATION, true) },
      { method: 'find', run: (s, tx) => s.find(tx, APPLICATION) },
      { method: 'find (locked)', run: (s, tx) => s.find(tx, APPLICATION, true) },
      { method: 'update', run: (s, tx) => s.update(tx, APPLICATION, { name: 'Shop 2', status: 'disabled' }) },
      { method: 'update (features)', run: (s, tx) => s.update(tx, APPLICATION, { features: { vouchers: false } }) },
    ],
  }),
  store<AppTokensStore>({
    file: 'apps/voucher-api/src/app-tokens/app-tokens.store.ts',
    create: (recorder) => new AppTokensStore(recorder.asDatabase()),
    examples: [
      { method: 'findByHash', run: (s) => s.findByHash('token-hash') },
      { method: 'recordUse', run: (s) => s.recordUse(TOKEN) },
      { method: 'list', run: (s) => s.list(APPLICATION) },
      {
        method: 'insert',
        run: (s, tx) =>
          s.insert(tx, {
            applicationId: APPLICATION,
            name: 'POS',
            tokenHash: 'token-hash',
            prefix: 'sop_3kT9',
            permissions: ['vouchers:redeem'],
            expiresAt: AT,
          }),
      },
      { method: 'revoke', run: (s, tx) => s.revoke(tx, APPLICATION, TOKEN) },
    ],
  }),
  store<TemplatesStore>({
    file: 'apps/voucher-api/src/templates/templates.store.ts',
    create: (recorder) => new TemplatesStore(recorder.asDatabase()),
    examples: [
      { method: 'list', run: (s) => s.list(APPLICATION) },
      { method: 'list (of a status)', run: (s) => s.list(APPLICATION, 'active') },
      { method: 'listForReview', run: (s) => s.listForReview(undefined, PAGE) },
      { method: 'listForReview (of a status)', run: (s) => s.listForReview('reviewing', PAGE) },
      { method: 'find', run: (s, tx) => s.find(tx, APPLICATION, TEMPLATE) },
      { method: 'find (any application, locked)', run: (s, tx) => s.find(tx, null, TEMPLATE, true) },
      { method: 'insert', run: (s, tx) => s.insert(tx, TEMPLATE_FIELDS) },
      {
        method: 'update',
        run: (s, tx) => s.update(tx, TEMPLATE, { status: 'reviewing', submittedAt: AT, rejectionReason: null }),
      },
      { method: 'consumeAllocatedStock', run: (s, tx) => s.consumeAllocatedStock(tx, TEMPLATE, 5) },
      { method: 'consumePerUserQuota', run: (s, tx) => s.consumePerUserQuota(tx, TEMPLATE, 'user-1', 3) },
    ],
  }),
  store<AllocationsStore>({
    file: 'apps/voucher-api/src/allocations/allocations.store.ts',
    create: (recorder) => new AllocationsStore(recorder.asDatabase()),
    examples: [
      { method: 'list', run: (s) => s.list(APPLICATION, undefined, PAGE) },
      { method: 'list (of a template)', run: (s) => s.list(APPLICATION, TEMPLATE, PAGE) },
      {
        method: 'insert',
        run: (s, tx) =>
          s.insert(tx, {
            applicationId: APPLICATION,
            templateId: TEMPLATE,
            senderUserId: 'user-1',
            createdBy: 'owner-1',
            quantity: 10,
          }),
      },
      { method: 'listForSender', run: (s) => s.listForSender('user-1', PAGE) },
      { method: 'backpackDetails', run: (s) => s.backpackDetails([ALLOCATION]) },
      { method: 'findOfSender', run: (s, tx) => s.findOfSender(tx, ALLOCATION, 'user-1') },
      { method: 'get', run: (s, tx) => s.get(tx, ALLOCATION) },
      { method: 'takeUnitToSend', run: (s, tx) => s.takeUnitToSend(tx, ALLOCATION, 'user-1') },
      { method: 'moveSendingUnit (claimed)', run: (s, tx) => s.moveSendingUnit(tx, ALLOCATION, 'claimed_count') },
      { method: 'moveSendingUnit (back)', run: (s, tx) => s.moveSendingUnit(tx, ALLOCATION, 'remaining') },
    ],
  }),
  store<SendsStore>({
    file: 'apps/voucher-api/src/allocations/sends.store.ts',
    create: (recorder) => new SendsStore(recorder.asDatabase()),
    examples: [
      {
        method: 'insert',
        run: (s, tx) => s.insert(tx, { allocationId: ALLOCATION, senderUserId: 'user-1', recipientUserId: 'user-2' }),
      },
      { method: 'listForRecipient', run: (s) => s.listForRecipient('user-2', PAGE) },
      { method: 'inboxDetails', run: (s) => s.inboxDetails([SEND]) },
      { method: 'lockFor (recipient)', run: (s, tx) => s.lockFor(tx, SEND, 'recipient_user_id', 'user-2') },
      { method: 'lockFor (sender)', run: (s, tx) => s.lockFor(tx, SEND, 'sender_user_id', 'user-1') },
      { method: 'markClaimed', run: (s, tx) => s.markClaimed(tx, SEND, VOUCHER) },
      { method: 'markCancelled', run: (s, tx) => s.markCancelled(tx, SEND) },
    ],
  }),
];
