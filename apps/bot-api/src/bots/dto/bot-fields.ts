import { Transform } from 'class-transformer';

/** Letters, digits and underscores, starting with a letter: safe inside `@username` mentions. */
export const BOT_USERNAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{2,63}$/;
export const BOT_SCOPE_PATTERN = /^[a-z][a-z_]*:[a-z][a-z_]*$/;
export const BOT_DESCRIPTION_MAX = 512;
export const BOT_AVATAR_MAX = 2048;

/** Trims strings so that a name of spaces counts as empty. */
export const Trim = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));
