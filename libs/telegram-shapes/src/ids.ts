/**
 * Telegram needs integer ids where the bot service has uuids (chats) and strings (users). Each native
 * id gets a stable positive integer alias; a group's chat id is the negated alias, as Telegram's
 * group ids are negative, and a private chat's is the alias itself.
 */
export interface TelegramIds {
  chat(id: string, type: 'private' | 'group'): number;
  user(id: string): number;
}

export type AliasKind = 'chat' | 'user';

/** Native ids by kind, as a store resolves them in one round trip. */
export interface AliasRequest {
  chat: Set<string>;
  user: Set<string>;
}

export function chatIdOf(alias: number, type: 'private' | 'group'): number {
  return type === 'group' ? -alias : alias;
}

/**
 * The first pass of a mapping: answers 0 for every id and notes what was asked, so the caller can
 * resolve all aliases of a batch at once and then map again with {@link ResolvedIds}.
 */
export class IdRecorder implements TelegramIds {
  readonly wanted: AliasRequest = { chat: new Set(), user: new Set() };

  chat(id: string): number {
    this.wanted.chat.add(id);
    return 0;
  }

  user(id: string): number {
    this.wanted.user.add(id);
    return 0;
  }
}

/** Aliases already looked up; a native id that was not looked up is a defect of the caller. */
export class ResolvedIds implements TelegramIds {
  constructor(private readonly aliases: Record<AliasKind, ReadonlyMap<string, number>>) {}

  chat(id: string, type: 'private' | 'group'): number {
    return chatIdOf(this.alias('chat', id), type);
  }

  user(id: string): number {
    return this.alias('user', id);
  }

  private alias(kind: AliasKind, id: string): number {
    const alias = this.aliases[kind].get(id);
    if (alias === undefined) throw new Error(`no Telegram alias was resolved for ${kind} ${id}`);
    return alias;
  }
}

/** Maps `build` with every alias it needs, resolved once through `resolve`. */
export async function withAliases<T>(
  build: (ids: TelegramIds) => T,
  resolve: (wanted: AliasRequest) => Promise<Record<AliasKind, ReadonlyMap<string, number>>>,
): Promise<T> {
  const recorder = new IdRecorder();
  build(recorder);
  return build(new ResolvedIds(await resolve(recorder.wanted)));
}
