import { randomBytes } from 'node:crypto';

const VIRTUAL_MEMBER_ID = /^vmember_[0-9a-f]{32}$/;

/** A new virtual member's user id: a shape reserved for them, so no account can sign in under one. */
export function newVirtualMemberId(): string {
  return `vmember_${randomBytes(16).toString('hex')}`;
}

export function isVirtualMemberId(id: string): boolean {
  return VIRTUAL_MEMBER_ID.test(id);
}
