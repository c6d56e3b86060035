import { likePattern } from './users.store';

describe('likePattern', () => {
  it('wraps the keyword for a substring match', () => {
    expect(likePattern('anna')).toBe('%anna%');
  });

  it('escapes %, _ and the escape character so they match literally', () => {
    expect(likePattern('50%_off\\')).toBe('%50\\%\\_off\\\\%');
  });
});
