import { mutationTarget } from './target.mjs';

/*
 * The parsers of Telegram's formatting (HTML, Markdown, MarkdownV2), the entity checks and the
 * detection of commands, mentions, hashtags, URLs and e-mails. Left out of the run: the timing tests
 * of worst-case.spec.ts (a mutant that only slows a parser down is what they catch, and timing under
 * instrumentation says nothing) and the 20,000 texts of detect-random.spec.ts (minutes per mutant
 * under instrumentation; detect.spec.ts runs the same comparison on 1,000).
 */
export default mutationTarget({
  name: 'formatting',
  jestConfig: 'libs/telegram-shapes/jest.config.ts',
  mutate: [
    'libs/telegram-shapes/src/formatting/*.ts',
    '!libs/telegram-shapes/src/formatting/*.spec.ts',
    '!libs/telegram-shapes/src/formatting/worst-case-inputs.ts',
    '!libs/telegram-shapes/src/formatting/detect-reference.ts',
  ],
  testMatch: [
    '<rootDir>/src/formatting/*.spec.ts',
    '!**/formatting/worst-case.spec.ts',
    '!**/formatting/detect-random.spec.ts',
  ],
});
