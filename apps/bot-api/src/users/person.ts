/** A member of the user directory as chats and messages show it (people and bot system users alike). */
export interface Person {
  id: string;
  name: string;
  username: string | null;
  isBot: boolean;
  /** A virtual member a bot speaks as in one group; never an account. */
  isVirtual?: boolean;
}

/** The user object of messages, members and Updates (Telegram's shape: the name is `first_name`). */
export function userView(person: Person) {
  return {
    id: person.id,
    is_bot: person.isBot,
    username: person.username,
    first_name: person.name,
    ...(person.isVirtual ? { is_virtual: true as const } : {}),
  };
}
