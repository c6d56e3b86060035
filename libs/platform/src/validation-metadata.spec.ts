import { getMetadataStorage, IsInt, IsString, MaxLength, validateSync } from 'class-validator';
import { cacheValidationMetadata } from './validation';

class Named {
  @IsString()
  @MaxLength(5)
  name!: string;
}

class Counted extends Named {
  @IsInt()
  count!: number;
}

const problems = (value: object) =>
  validateSync(value, { whitelist: true, forbidNonWhitelisted: true }).map((e) => [
    e.property,
    Object.keys(e.constraints ?? {}).sort(),
  ]);

describe('cacheValidationMetadata', () => {
  beforeAll(() => cacheValidationMetadata());

  it('answers each class rules lookup from the cache, the same array every time', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Counted, '', false, false);
    expect(storage.getTargetValidationMetadatas(Counted, '', false, false)).toBe(first);
    expect(storage.groupByPropertyName(first)).toBe(storage.groupByPropertyName(first));
    expect(first.map((m) => m.propertyName).sort()).toEqual(['count', 'name', 'name']);
  });

  it('keeps the rules, inherited ones included, and the refusal of unknown fields', () => {
    expect(problems(Object.assign(new Counted(), { name: 'lamp', count: 1 }))).toEqual([]);
    expect(problems(Object.assign(new Counted(), { name: 'too long', count: 'x', extra: 1 }))).toEqual([
      ['extra', ['whitelistValidation']],
      ['count', ['isInt']],
      ['name', ['maxLength']],
    ]);
    expect(problems(Object.assign(new Counted(), { name: 'too long', count: 'x', extra: 1 }))).toEqual([
      ['extra', ['whitelistValidation']],
      ['count', ['isInt']],
      ['name', ['maxLength']],
    ]);
  });

  it('applies the rules of a class decorated after the cache was filled', () => {
    expect(problems(Object.assign(new Counted(), { name: 'a', count: 1 }))).toEqual([]);
    class Later extends Counted {
      @IsString()
      note!: string;
    }
    expect(problems(Object.assign(new Later(), { name: 'a', count: 1, note: 2 }))).toEqual([['note', ['isString']]]);
  });

  it('patches the storage once however often it is called', () => {
    const storage = getMetadataStorage();
    const patched = storage.getTargetValidationMetadatas;
    cacheValidationMetadata();
    expect(storage.getTargetValidationMetadatas).toBe(patched);
  });
});
