import { botAvailableSql, isBotAvailable } from './bot-availability';

describe('bot availability', () => {
  it('lets a bot act only once approved and while enabled', () => {
    expect(isBotAvailable({ reviewStatus: 'approved', status: 'enabled' })).toBe(true);
    expect(isBotAvailable({ reviewStatus: 'approved', status: 'disabled' })).toBe(false);
    expect(isBotAvailable({ reviewStatus: 'pending', status: 'enabled' })).toBe(false);
    expect(isBotAvailable({ reviewStatus: 'rejected', status: 'disabled' })).toBe(false);
  });

  it('says the same in SQL, on the bots row of the given alias', () => {
    expect(botAvailableSql('b')).toBe(`b.review_status = 'approved' AND b.status = 'enabled'`);
  });
});
