import { MultipartSlots } from './multipart-slots';

describe('MultipartSlots', () => {
  it('gives one bot at most its share and the process at most its total', () => {
    const slots = new MultipartSlots(3, 2);
    expect(slots.tryAcquire('a')).not.toBeNull();
    expect(slots.tryAcquire('a')).not.toBeNull();
    expect(slots.tryAcquire('a')).toBeNull();
    expect(slots.tryAcquire('b')).not.toBeNull();
    expect(slots.tryAcquire('c')).toBeNull();
    expect(slots.inUse).toBe(3);
  });

  it('frees a slot once however often its release is called', () => {
    const slots = new MultipartSlots(2, 2);
    const release = slots.tryAcquire('a')!;
    slots.tryAcquire('a');
    release();
    release();
    expect(slots.inUse).toBe(1);
    expect(slots.tryAcquire('a')).not.toBeNull();
    expect(slots.tryAcquire('a')).toBeNull();
  });
});
