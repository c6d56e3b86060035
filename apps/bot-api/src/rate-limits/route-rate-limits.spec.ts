import { routeLimitOf } from './route-rate-limits';

describe('routeLimitOf', () => {
  it('gives button clicks and inline queries their own per-account budgets', () => {
    expect(routeLimitOf('POST', '/api/v1/bots/client/callback-queries')).toEqual({
      endpoint: 'client.callback_query',
      subject: 'account',
    });
    expect(routeLimitOf('POST', '/api/v1/bots/client/inline-queries')).toEqual({
      endpoint: 'client.inline_query',
      subject: 'account',
    });
  });

  it('counts reading a query as a client read, and other client writes as client writes', () => {
    expect(routeLimitOf('GET', '/api/v1/bots/client/callback-queries/{id}')?.endpoint).toBe('client.read');
    expect(routeLimitOf('GET', '/api/v1/bots/client/inline-queries/abc')?.endpoint).toBe('client.read');
    expect(routeLimitOf('POST', '/api/v1/bots/client/chats')?.endpoint).toBe('client.write');
  });

  it('limits the bot answers like every other bot method', () => {
    expect(routeLimitOf('POST', '/api/v1/bots/answerCallbackQuery')).toEqual({ endpoint: 'bot', subject: 'bot' });
  });

  it('counts the signed file byte routes per checked URL, else per client address, since the URL is their only credential', () => {
    expect(routeLimitOf('PUT', '/api/v1/bots/files/storage/{blob}')).toEqual({
      endpoint: 'file_transfer',
      subject: 'credential',
    });
    expect(routeLimitOf('GET', '/api/v1/bots/files/storage/abc')).toEqual({
      endpoint: 'file_transfer',
      subject: 'credential',
    });
    expect(routeLimitOf('POST', '/api/v1/bots/files/upload-credentials')).toEqual({ endpoint: 'bot', subject: 'bot' });
    expect(routeLimitOf('POST', '/api/v1/bots/client/files/complete')?.endpoint).toBe('client.write');
  });

  it('counts the Telegram face against the same per-bot budgets, setWebhook against set_webhook', () => {
    const token = `sbot_${'a'.repeat(43)}`;
    expect(routeLimitOf('POST', `/telegram/bot${token}/sendMessage`)).toEqual({ endpoint: 'bot', subject: 'bot' });
    expect(routeLimitOf('POST', `/telegram/bot${token}/SETWEBHOOK`)).toEqual({
      endpoint: 'set_webhook',
      subject: 'bot',
    });
    expect(routeLimitOf('GET', `/telegram/file/bot${token}/abc/photo.png`)).toEqual({
      endpoint: 'bot',
      subject: 'bot',
    });
    expect(routeLimitOf('POST', `/bot${token}/sendMessage`)).toEqual({ endpoint: 'bot', subject: 'bot' });
    expect(routeLimitOf('POST', `/bot${token}/setWebhook`)).toEqual({ endpoint: 'set_webhook', subject: 'bot' });
    expect(routeLimitOf('GET', `/file/bot${token}/abc/setWebhook`)).toEqual({ endpoint: 'bot', subject: 'bot' });
    expect(routeLimitOf('POST', '/bot{token}/{method}')).toEqual({ endpoint: 'bot', subject: 'bot' });
    expect(routeLimitOf('GET', '/health')).toBeNull();
  });

  it('counts a path with a trailing slash, which the router serves too, as the path without it', () => {
    expect(routeLimitOf('POST', '/api/v1/bots/client/callback-queries/')).toEqual({
      endpoint: 'client.callback_query',
      subject: 'account',
    });
    expect(routeLimitOf('POST', '/api/v1/bots/client/inline-queries//')?.endpoint).toBe('client.inline_query');
  });
});
