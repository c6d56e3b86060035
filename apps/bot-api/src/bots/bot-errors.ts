import { ApiError } from '@app/envelope';
import { BotErrors } from '../bot-errors';

const UNIQUE_VIOLATION = '23505';

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const driverError = (error as { driverError?: { code?: string; constraint?: string }; code?: string }) ?? {};
  const code = driverError.driverError?.code ?? driverError.code;
  const name = driverError.driverError?.constraint ?? (error as { constraint?: string }).constraint;
  return code === UNIQUE_VIOLATION && (constraint === undefined || name === constraint);
}

/** The username indexes of bots and of their system users both mean "taken". */
export function usernameTaken(error: unknown): ApiError | undefined {
  if (isUniqueViolation(error, 'bots_username_lower') || isUniqueViolation(error, 'users_username_lower')) {
    return BotErrors.error('CONFLICT', 'This username is already taken');
  }
  return undefined;
}
