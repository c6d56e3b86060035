/** Where the Telegram face lives, outside /api/v1: a framework's API root is `<host>/telegram`. */
export const TELEGRAM_ROUTE_PREFIX = '/telegram/';
