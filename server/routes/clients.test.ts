/**
 * POST /client, GET /client and GET /client/{id}: the create-result form (`cpfCnpj`), the list
 * form (`taxId`, address parts) the list and the read by id answer (D37), validation of every
 * field (D22–D24, D26), duplicates (D33), order of the list (D08) and isolation between
 * companies (D27).
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { isValidCpfOrCnpj } from '../../lib/brazil/tax-id.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { buildClient } from '../domain/clients.js';
import { clientBody, customers, expectProblem, expectValidation, fakeClock, idPatterns, sendJson, taxIds, unknownId } from '../test-support/fixtures.js';

const { name: _name, postalCode: _postalCode, address: _address, district: _district, number: _number, line1: _line1, ...clientFields } = customers.maria;

type ClientCreate = components['schemas']['ClientCreate'];

const clock = fakeClock('2026-11-21T14:30:00.000Z');
let server: TestServer;

beforeEach(async () => {
  clock.set('2026-11-21T14:30:00.000Z');
  server = await createTestServer({ now: clock.now });
});

afterEach(async () => {
  expect(server.violations).toEqual([]);
  await server.close();
});

test('the tax numbers of the fixtures have valid check digits', () => {
  for (const taxId of Object.values(taxIds)) expect(isValidCpfOrCnpj(taxId), taxId).toBe(true);
});

describe('POST /client', () => {
  test('answers 201 with the create-result form: cpfCnpj, no taxId, the company of the key', async () => {
    const { data, response } = await server.api.POST('/client', { body: clientBody() });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(data).toEqual({
      id: expect.stringMatching(idPatterns.client),
      cpfCnpj: taxIds.cpf,
      name: 'Maria Silva Souza',
      email: 'maria.souza@example.com',
      phone: '11987654321',
      status: 'ACTIVE',
      companyId: server.companyId,
      createdAt: '2026-11-21T14:30:00.000Z',
      updatedAt: '2026-11-21T14:30:00.000Z',
    });
    expect(data).not.toHaveProperty('taxId');
  });

  test('gives every client its own identifier', async () => {
    const first = await server.api.POST('/client', { body: clientBody() });
    const second = await server.api.POST('/client', { body: clientBody({ cpfCnpj: taxIds.cpf2 }) });
    expect(first.data?.id).toMatch(idPatterns.client);
    expect(second.data?.id).toMatch(idPatterns.client);
    expect(first.data?.id).not.toBe(second.data?.id);
  });

  const accepted: Array<[string, { given: Partial<ClientCreate>; want: Partial<components['schemas']['ClientCreateResult']> }]> = [
    ['a CPF (11 digits)', { given: { cpfCnpj: taxIds.cpf }, want: { cpfCnpj: taxIds.cpf } }],
    ['another CPF', { given: { cpfCnpj: taxIds.cpf2 }, want: { cpfCnpj: taxIds.cpf2 } }],
    ['a CNPJ (14 digits)', { given: { cpfCnpj: taxIds.cnpj }, want: { cpfCnpj: taxIds.cnpj } }],
    ['a CNPJ whose first check digit is 1', { given: { cpfCnpj: taxIds.cnpj2 }, want: { cpfCnpj: taxIds.cnpj2 } }],
    ['a landline phone (10 digits)', { given: { phone: '1133334444' }, want: { phone: '1133334444' } }],
    ['a mobile phone (11 digits)', { given: { phone: '21998765432' }, want: { phone: '21998765432' } }],
    ['a name of exactly 255 characters', { given: { name: 'a'.repeat(255) }, want: { name: 'a'.repeat(255) } }],
    ['a name of one character', { given: { name: 'M' }, want: { name: 'M' } }],
    ['a name with accents', { given: { name: 'João Conceição Ávila' }, want: { name: 'João Conceição Ávila' } }],
    ['status INACTIVE', { given: { status: 'INACTIVE' }, want: { status: 'INACTIVE' } }],
    ['an e-mail with a plus and subdomain', { given: { email: 'maria+loja@mail.example.com.br' }, want: { email: 'maria+loja@mail.example.com.br' } }],
  ];
  test.for(accepted)('accepts %s', async ([, { given, want }]) => {
    const { data, response } = await server.api.POST('/client', { body: clientBody(given) });
    expect(response.status).toBe(201);
    expect(data).toMatchObject(want);
  });

  // D46: the forms Brazilian forms send, stored and returned as digits in both forms of a client.
  const punctuated: Array<[string, { given: Partial<ClientCreate>; want: { cpfCnpj?: string; phone?: string; postalCode?: string } }]> = [
    ['a CPF with dots and a dash', { given: { cpfCnpj: '529.982.247-25' }, want: { cpfCnpj: '52998224725' } }],
    ['a CNPJ with dots, a slash and a dash', { given: { cpfCnpj: '11.444.777/0001-61' }, want: { cpfCnpj: '11444777000161' } }],
    ['a CPF with spaces', { given: { cpfCnpj: '529 982 247 25' }, want: { cpfCnpj: '52998224725' } }],
    ['a phone with +55, spaces and a dash', { given: { phone: '+55 11 98765-4321' }, want: { phone: '11987654321' } }],
    ['a phone with the area code in parentheses', { given: { phone: '(11) 98765-4321' }, want: { phone: '11987654321' } }],
    ['a phone with spaces', { given: { phone: '11 98765-4321' }, want: { phone: '11987654321' } }],
    ['a phone with +55 and no separators', { given: { phone: '+5511987654321' }, want: { phone: '11987654321' } }],
    ['a landline with +55 and parentheses', { given: { phone: '+55 (21) 3456-7890' }, want: { phone: '2134567890' } }],
    ['a phone of DDD 55 without country code', { given: { phone: '(55) 3222-1234' }, want: { phone: '5532221234' } }],
    ['a CEP with a dash', { given: { postalCode: '01310-100' }, want: { postalCode: '01310100' } }],
    ['a CEP with a dot and a dash', { given: { postalCode: '01.310-100' }, want: { postalCode: '01310100' } }],
  ];
  test.for(punctuated)('accepts %s and stores the digits (D46)', async ([, { given, want }]) => {
    const { data, response } = await server.api.POST('/client', { body: clientBody(given) });
    expect(response.status).toBe(201);
    const { postalCode, ...createResult } = want;
    expect(data).toMatchObject(createResult);
    const listed = await server.api.GET('/client');
    const { cpfCnpj, ...rest } = want;
    expect(listed.data).toEqual([expect.objectContaining({ id: data?.id, ...rest, ...(cpfCnpj ? { taxId: cpfCnpj } : {}) })]);
    if (postalCode) expect(listed.data?.[0]?.postalCode).toBe(postalCode);
  });

  test('accepts the companyId of its own company (D26)', async () => {
    const { data, response } = await server.api.POST('/client', { body: clientBody({ companyId: server.companyId }) });
    expect(response.status).toBe(201);
    expect(data?.companyId).toBe(server.companyId);
  });

  test('accepts the optional address parts, which the create-result form leaves out and the list form shows', async () => {
    const address = { postalCode: '01310100', address: 'Avenida Paulista', district: 'Bela Vista', number: '1578', line1: 'Apto 42' };
    const { data, response } = await server.api.POST('/client', { body: clientBody(address) });
    expect(response.status).toBe(201);
    const listed = await server.api.GET('/client');
    expect(listed.data).toEqual([expect.objectContaining({ id: data?.id, ...address })]);
  });

  test('allows several clients with the same tax number (D33)', async () => {
    const first = await server.api.POST('/client', { body: clientBody() });
    clock.advance(1);
    const second = await server.api.POST('/client', { body: clientBody({ name: 'Maria S. Souza' }) });
    expect(first.response.status).toBe(201);
    expect(second.response.status).toBe(201);
    expect(second.data?.cpfCnpj).toBe(first.data?.cpfCnpj);
    expect(second.data?.id).not.toBe(first.data?.id);
    const listed = await server.api.GET('/client');
    expect(listed.data?.map((c) => c.id)).toEqual([first.data?.id, second.data?.id]);
    expect(listed.data?.map((c) => c.taxId)).toEqual([taxIds.cpf, taxIds.cpf]);
  });

  const refused: Array<[string, { given: Record<string, unknown>; want: string[] }]> = [
    ['a CPF with a wrong first check digit', { given: { cpfCnpj: '52998224735' }, want: ['/cpfCnpj'] }],
    ['a CPF with a wrong second check digit', { given: { cpfCnpj: '52998224724' }, want: ['/cpfCnpj'] }],
    ['a CNPJ with wrong check digits', { given: { cpfCnpj: '11444777000162' }, want: ['/cpfCnpj'] }],
    ['a CPF of one repeated digit', { given: { cpfCnpj: '11111111111' }, want: ['/cpfCnpj'] }],
    ['a CNPJ of one repeated digit', { given: { cpfCnpj: '00000000000000' }, want: ['/cpfCnpj'] }],
    ['a tax number of 12 digits', { given: { cpfCnpj: '529982247250' }, want: ['/cpfCnpj'] }],
    ['a tax number of 13 digits', { given: { cpfCnpj: '1144477700016' }, want: ['/cpfCnpj'] }],
    ['a tax number of 10 digits', { given: { cpfCnpj: '5299822472' }, want: ['/cpfCnpj'] }],
    ['a tax number of 15 digits', { given: { cpfCnpj: '114447770001610' }, want: ['/cpfCnpj'] }],
    ['an alphanumeric CNPJ (D23)', { given: { cpfCnpj: '12ABC34501DE35' }, want: ['/cpfCnpj'] }],
    ['a tax number as a JSON number', { given: { cpfCnpj: 52998224725 }, want: ['/cpfCnpj'] }],
    ['a punctuated CPF with a wrong check digit (D46)', { given: { cpfCnpj: '529.982.247-26' }, want: ['/cpfCnpj'] }],
    ['a punctuated CNPJ with a wrong check digit (D46)', { given: { cpfCnpj: '11.444.777/0001-62' }, want: ['/cpfCnpj'] }],
    ['a CPF with commas (D46)', { given: { cpfCnpj: '529,982,247-25' }, want: ['/cpfCnpj'] }],
    ['a CPF with a letter among the dots (D46)', { given: { cpfCnpj: '529.982.247-2x' }, want: ['/cpfCnpj'] }],
    ['a punctuated tax number of 12 digits (D46)', { given: { cpfCnpj: '529.982.247-250' }, want: ['/cpfCnpj'] }],
    ['a phone of 9 digits', { given: { phone: '119876543' }, want: ['/phone'] }],
    ['a phone of 12 digits', { given: { phone: '551198765432' }, want: ['/phone'] }],
    ['a phone with a letter', { given: { phone: '1198765432a' }, want: ['/phone'] }],
    ['a phone with 55 but no plus (D46)', { given: { phone: '5511987654321' }, want: ['/phone'] }],
    ['a phone with another country code (D46)', { given: { phone: '+1 415 555 2671' }, want: ['/phone'] }],
    ['a phone with +55 in the middle (D46)', { given: { phone: '11 +55 98765-4321' }, want: ['/phone'] }],
    ['a phone with a tab (D46)', { given: { phone: '11\t98765-4321' }, want: ['/phone'] }],
    ['a punctuated phone of 9 digits (D46)', { given: { phone: '(11) 8765-432' }, want: ['/phone'] }],
    ['a name of 256 characters', { given: { name: 'a'.repeat(256) }, want: ['/name'] }],
    ['an empty name', { given: { name: '' }, want: ['/name'] }],
    ['a name that is not a string', { given: { name: 42 }, want: ['/name'] }],
    ['an e-mail without @', { given: { email: 'maria.example.com' }, want: ['/email'] }],
    ['an e-mail without domain', { given: { email: 'maria@' }, want: ['/email'] }],
    ['an e-mail with a space', { given: { email: 'maria souza@example.com' }, want: ['/email'] }],
    ['an e-mail of 255 characters', { given: { email: `${'a'.repeat(243)}@example.com` }, want: ['/email'] }],
    ['a status outside the enum', { given: { status: 'DELETED' }, want: ['/status'] }],
    ['a status in lower case', { given: { status: 'active' }, want: ['/status'] }],
    ['a postal code of 7 digits', { given: { postalCode: '0131010' }, want: ['/postalCode'] }],
    ['a postal code with a slash (D46)', { given: { postalCode: '01310/100' }, want: ['/postalCode'] }],
    ['a punctuated postal code of 7 digits (D46)', { given: { postalCode: '0131-010' }, want: ['/postalCode'] }],
    ['a street number of 21 characters', { given: { number: '1'.repeat(21) }, want: ['/number'] }],
    ['an address of 256 characters', { given: { address: 'a'.repeat(256) }, want: ['/address'] }],
    ['a district of 256 characters', { given: { district: 'a'.repeat(256) }, want: ['/district'] }],
    ['a complement of 256 characters', { given: { line1: 'a'.repeat(256) }, want: ['/line1'] }],
    ['a malformed companyId', { given: { companyId: 'company-1' }, want: ['/companyId'] }],
    ['an unknown field', { given: { taxId: taxIds.cpf }, want: ['/taxId'] }],
    ['a misspelt field', { given: { Email: 'maria@example.com' }, want: ['/Email'] }],
    ['two unknown fields', { given: { city: 'São Paulo', devmode: true }, want: ['/city', '/devmode'] }],
    [
      'several bad fields at once',
      { given: { cpfCnpj: '52998224724', phone: '123', email: 'nope', name: '', extra: 1 }, want: ['/cpfCnpj', '/email', '/extra', '/name', '/phone'] },
    ],
  ];
  test.for(refused)('refuses %s with 422 naming the field', async ([, { given, want }]) => {
    const { response } = await sendJson(server, 'POST', '/client', { ...clientBody(), ...given });
    await expectValidation(response, want, '/client');
    const listed = await server.api.GET('/client');
    expect(listed.data).toEqual([]);
  });

  const required = ['name', 'status', 'cpfCnpj', 'email', 'phone'] as const;
  test.for(required)('refuses a body without %s with 422 naming it as required', async (field) => {
    const body: Record<string, unknown> = { ...clientBody() };
    delete body[field];
    const { response } = await sendJson(server, 'POST', '/client', body);
    const problem = await expectValidation(response, [`/${field}`], '/client');
    expect(problem.errors).toEqual([expect.objectContaining({ pointer: `/${field}`, keyword: 'required' })]);
  });

  test('refuses an empty object naming every required field', async () => {
    const { response } = await sendJson(server, 'POST', '/client', {});
    await expectValidation(
      response,
      required.map((f) => `/${f}`),
    );
  });

  test('names an unknown field with the additionalProperties keyword (D22)', async () => {
    const { response } = await sendJson(server, 'POST', '/client', { ...clientBody(), taxId: taxIds.cpf });
    const problem = await expectValidation(response, ['/taxId']);
    expect(problem.errors).toEqual([expect.objectContaining({ pointer: '/taxId', keyword: 'additionalProperties' })]);
  });

  test('refuses the companyId of another company with 422 and creates nothing in either company (D26)', async () => {
    const { response } = await sendJson(server, 'POST', '/client', { ...clientBody(), companyId: server.other.companyId });
    await expectValidation(response, ['/companyId'], '/client');
    expect((await server.api.GET('/client')).data).toEqual([]);
    expect((await server.other.api.GET('/client')).data).toEqual([]);
  });
});

describe('GET /client', () => {
  test('answers 200 with [] for a company without clients', async () => {
    const { data, response } = await server.api.GET('/client');
    expect(response.status).toBe(200);
    expect(data).toEqual([]);
  });

  test('lists clients in the list form: taxId instead of cpfCnpj, address parts only when sent', async () => {
    const withAddress = await server.api.POST('/client', {
      body: clientBody({ postalCode: '01310100', address: 'Avenida Paulista', district: 'Bela Vista', number: '1578', line1: 'Apto 42' }),
    });
    clock.advance(1000);
    const withoutAddress = await server.api.POST('/client', { body: clientBody({ name: 'Empresa Exemplo Ltda', cpfCnpj: taxIds.cnpj, status: 'INACTIVE' }) });
    const { data, response } = await server.api.GET('/client');
    expect(response.status).toBe(200);
    expect(data).toEqual([
      {
        id: withAddress.data?.id,
        taxId: taxIds.cpf,
        name: 'Maria Silva Souza',
        email: 'maria.souza@example.com',
        phone: '11987654321',
        status: 'ACTIVE',
        companyId: server.companyId,
        createdAt: '2026-11-21T14:30:00.000Z',
        updatedAt: '2026-11-21T14:30:00.000Z',
        postalCode: '01310100',
        address: 'Avenida Paulista',
        district: 'Bela Vista',
        number: '1578',
        line1: 'Apto 42',
      },
      {
        id: withoutAddress.data?.id,
        taxId: taxIds.cnpj,
        name: 'Empresa Exemplo Ltda',
        email: 'maria.souza@example.com',
        phone: '11987654321',
        status: 'INACTIVE',
        companyId: server.companyId,
        createdAt: '2026-11-21T14:30:01.000Z',
        updatedAt: '2026-11-21T14:30:01.000Z',
      },
    ]);
    for (const client of data ?? []) expect(client).not.toHaveProperty('cpfCnpj');
  });

  test('lists the clients oldest first by createdAt, not in the order they were stored (D08)', async () => {
    const created: Record<string, string> = {};
    for (const [name, at] of [
      ['third', '2026-11-21T14:30:02.000Z'],
      ['first', '2026-11-20T09:00:00.000Z'],
      ['fourth', '2027-01-01T00:00:00.000Z'],
      ['second', '2026-11-21T14:30:01.999Z'],
    ] as const) {
      clock.set(at);
      const { data } = await server.api.POST('/client', { body: clientBody({ name }) });
      created[name] = data!.id;
    }
    const { data } = await server.api.GET('/client');
    expect(data?.map((c) => c.name)).toEqual(['first', 'second', 'third', 'fourth']);
    expect(data?.map((c) => c.id)).toEqual([created.first, created.second, created.third, created.fourth]);
  });

  test('breaks ties of createdAt by id (D08)', async () => {
    for (let i = 0; i < 6; i++) await server.api.POST('/client', { body: clientBody({ name: `Cliente ${i}` }) });
    const { data } = await server.api.GET('/client');
    const ids = data?.map((c) => c.id) ?? [];
    expect(ids).toHaveLength(6);
    expect(ids).toEqual([...ids].sort());
  });

  test('ignores query parameters other than the paging ones (D08)', async () => {
    await server.api.POST('/client', { body: clientBody() });
    await server.api.POST('/client', { body: clientBody({ cpfCnpj: taxIds.cnpj }) });
    const plain = await server.request('/client');
    const other = await server.request('/client?page=2&offset=1&taxId=00000000000');
    expect(other.status).toBe(200);
    expect(other.headers.get('link')).toBeNull();
    expect(await other.json()).toEqual(await plain.json());
  });

  test('shows a company only its own clients, in both directions', async () => {
    const ofA = await server.api.POST('/client', { body: clientBody({ name: 'Cliente de A' }) });
    const ofB = await server.other.api.POST('/client', { body: clientBody({ name: 'Cliente de B' }) });
    expect(ofB.data?.companyId).toBe(server.other.companyId);
    const listA = await server.api.GET('/client');
    const listB = await server.other.api.GET('/client');
    expect(listA.data?.map((c) => c.id)).toEqual([ofA.data?.id]);
    expect(listB.data?.map((c) => c.id)).toEqual([ofB.data?.id]);
    expect(listB.data?.every((c) => c.companyId === server.other.companyId)).toBe(true);
  });

  test('company B sees [] while company A has clients', async () => {
    await server.api.POST('/client', { body: clientBody() });
    await server.api.POST('/client', { body: clientBody({ cpfCnpj: taxIds.cnpj }) });
    expect((await server.api.GET('/client')).data).toHaveLength(2);
    expect((await server.other.api.GET('/client')).data).toEqual([]);
  });

  test('needs an API key like every operation (D03)', async () => {
    await expectProblem(await server.request('/client', { apiKey: null }), 401, '/problems/unauthorized', '/client');
  });
});

describe('GET /client/{id}', () => {
  test('answers 200 with the client in the list form, as GET /client lists it (D37)', async () => {
    const created = await server.api.POST('/client', {
      body: clientBody({ postalCode: '01310100', address: 'Avenida Paulista', district: 'Bela Vista', number: '1578', line1: 'Apto 42' }),
    });
    const id = created.data!.id;
    const { data, response } = await server.api.GET('/client/{id}', { params: { path: { id } } });
    expect(response.status).toBe(200);
    expect(data).toEqual((await server.api.GET('/client')).data?.[0]);
    expect(data).toMatchObject({ id, taxId: taxIds.cpf, companyId: server.companyId, line1: 'Apto 42' });
    expect(data).not.toHaveProperty('cpfCnpj');
  });

  test("answers 404 for another company's client, an unknown id and a malformed one (D27)", async () => {
    const theirs = (await server.other.api.POST('/client', { body: clientBody() })).data!.id;
    for (const id of [theirs, unknownId('clnt'), 'not-a-client-id']) {
      const refused = await expectProblem(await server.request(`/client/${id}`), 404, '/problems/not-found', `/client/${id}`);
      expect(refused.detail).toContain(id);
    }
  });
});

describe('GET /client in pages (D48)', () => {
  type Listed = components['schemas']['Client'];
  const nextLink = /^<(\/client\?limit=(\d+)&after=[A-Za-z0-9_-]+)>; rel="next"$/;

  /** `count` clients of company A, three per instant (ties broken by id). */
  async function createClients(count: number, api = server.api): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      if (i % 3 === 0) clock.advance(1000);
      const { data } = await api.POST('/client', { body: clientBody({ name: `Cliente ${i}` }) });
      ids.push(data!.id);
    }
    return ids;
  }

  /** Follows the `Link` headers from `first`: each page's ids and its Link. */
  async function walk(first: string, apiKey?: string): Promise<Array<{ ids: string[]; link: string | null }>> {
    const pages: Array<{ ids: string[]; link: string | null }> = [];
    let target: string | undefined = first;
    while (target !== undefined) {
      const response = await server.request(target, apiKey ? { apiKey } : {});
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const link = response.headers.get('link');
      pages.push({ ids: ((await response.json()) as Listed[]).map((c) => c.id), link });
      expect(pages.length).toBeLessThan(50);
      target = link === null ? undefined : nextLink.exec(link)?.[1];
      if (link !== null) expect(link).toMatch(nextLink);
    }
    return pages;
  }

  test.each<[string, { given: { clients: number; first: string }; want: { sizes: number[] } }]>([
    ['limit 3 over 8 clients', { given: { clients: 8, first: '/client?limit=3' }, want: { sizes: [3, 3, 2] } }],
    ['limit 4 over 8 clients: the last full page has no Link', { given: { clients: 8, first: '/client?limit=4' }, want: { sizes: [4, 4] } }],
    ['limit 1 across ties of createdAt', { given: { clients: 4, first: '/client?limit=1' }, want: { sizes: [1, 1, 1, 1] } }],
    ['limit 1000 (the maximum) over 5', { given: { clients: 5, first: '/client?limit=1000' }, want: { sizes: [5] } }],
    ['a limit over no clients', { given: { clients: 0, first: '/client?limit=10' }, want: { sizes: [0] } }],
  ])('%s: the walk gives every client once, in the order of the whole list', async (_name, { given, want }) => {
    await createClients(given.clients);
    const whole = await server.request('/client');
    expect(whole.headers.get('link')).toBeNull();
    const order = ((await whole.json()) as Listed[]).map((c) => c.id);
    const pages = await walk(given.first);
    expect(pages.map((p) => p.ids.length)).toEqual(want.sizes);
    expect(pages.flatMap((p) => p.ids)).toEqual(order);
    // Every Link keeps the size asked for; only the last page has none.
    expect(pages.map((p) => (p.link === null ? null : nextLink.exec(p.link)?.[2]))).toEqual(
      want.sizes.map((_, i) => (i === want.sizes.length - 1 ? null : given.first.split('limit=')[1])),
    );
  });

  test('a page is the same array of list-form clients as the whole list', async () => {
    await createClients(3);
    const whole = (await server.api.GET('/client')).data ?? [];
    const { data, response } = await server.api.GET('/client', { params: { query: { limit: 2 } } });
    expect(response.status).toBe(200);
    expect(data).toEqual(whole.slice(0, 2));
  });

  test('`after` alone gives a page of 100', async () => {
    const made = Array.from({ length: 102 }, (_, i) =>
      buildClient(server.companyId, { ...clientFields, name: `Cliente ${i}` }, new Date(Date.UTC(2026, 10, 21, 0, 0, i))),
    );
    for (const c of made) await server.deps.store.insertClient(c);
    const cursor = /after=([^>]+)>/.exec((await server.request('/client?limit=1')).headers.get('link') ?? '')?.[1];
    const response = await server.request(`/client?after=${cursor}`);
    expect(((await response.json()) as Listed[]).map((c) => c.id)).toEqual(made.slice(1, 101).map((c) => c.id));
    expect(response.headers.get('link')).toMatch(/^<\/client\?limit=100&after=/);
  });

  test('a client created during the walk is seen once, on a later page', async () => {
    await createClients(4);
    const first = await server.request('/client?limit=2');
    const link = nextLink.exec(first.headers.get('link') ?? '')?.[1];
    clock.advance(5000);
    const [late] = await createClients(1);
    const rest = await walk(link!);
    expect(rest.flatMap((p) => p.ids)).toHaveLength(3);
    expect(rest.flatMap((p) => p.ids).at(-1)).toBe(late);
  });

  test("a company's pages hold only its clients, also with another company's cursor", async () => {
    const ofA = await createClients(3);
    const ofB = await createClients(3, server.other.api);
    const pagesB = await walk('/client?limit=2', server.other.apiKey);
    expect(pagesB.flatMap((p) => p.ids)).toEqual(((await server.other.api.GET('/client')).data ?? []).map((c) => c.id));
    expect([...pagesB.flatMap((p) => p.ids)].sort()).toEqual([...ofB].sort());
    // A's cursor is a position in the order, not a key to A's list: B gets its own clients after it.
    const linkA = nextLink.exec((await server.request('/client?limit=1')).headers.get('link') ?? '')?.[1];
    const pagesWithA = await walk(linkA!, server.other.apiKey);
    for (const id of pagesWithA.flatMap((p) => p.ids)) expect(ofB).toContain(id);
    expect(pagesWithA.flatMap((p) => p.ids).some((id) => ofA.includes(id))).toBe(false);
  });

  const realCursor = Buffer.from('2026-11-21T14:30:00.000Z clnt_qf1ntfya8fmpj4swmjr4645w').toString('base64url');
  const refused: Array<[string, { given: string; want: { parameter: string; keyword: string } }]> = [
    ['limit 0', { given: 'limit=0', want: { parameter: 'limit', keyword: 'minimum' } }],
    ['limit -1', { given: 'limit=-1', want: { parameter: 'limit', keyword: 'minimum' } }],
    ['limit 1001', { given: 'limit=1001', want: { parameter: 'limit', keyword: 'maximum' } }],
    ['limit 1.5', { given: 'limit=1.5', want: { parameter: 'limit', keyword: 'type' } }],
    ['limit as a word', { given: 'limit=ten', want: { parameter: 'limit', keyword: 'type' } }],
    ['an empty limit', { given: 'limit=', want: { parameter: 'limit', keyword: 'type' } }],
    ['limit with a space', { given: 'limit=%2010', want: { parameter: 'limit', keyword: 'type' } }],
    ['limit sent twice', { given: 'limit=2&limit=3', want: { parameter: 'limit', keyword: 'unique' } }],
    ['an empty after', { given: 'limit=2&after=', want: { parameter: 'after', keyword: 'minLength' } }],
    ['an after with characters outside base64url', { given: 'after=abc%2Bdef', want: { parameter: 'after', keyword: 'pattern' } }],
    ['an after of 129 characters', { given: `after=${'a'.repeat(129)}`, want: { parameter: 'after', keyword: 'maxLength' } }],
    [
      'an after that decodes to no position',
      { given: `after=${Buffer.from('page 2').toString('base64url')}`, want: { parameter: 'after', keyword: 'cursor' } },
    ],
    [
      'an after with a timestamp not in the stored form',
      {
        given: `after=${Buffer.from('2026-11-21T14:30:00Z clnt_qf1ntfya8fmpj4swmjr4645w').toString('base64url')}`,
        want: { parameter: 'after', keyword: 'cursor' },
      },
    ],
    [
      'an after naming no client id',
      {
        given: `after=${Buffer.from('2026-11-21T14:30:00.000Z prod_qf1ntfya8fmpj4swmjr4645w').toString('base64url')}`,
        want: { parameter: 'after', keyword: 'cursor' },
      },
    ],
    ['an after cut short', { given: `after=${realCursor.slice(0, -3)}`, want: { parameter: 'after', keyword: 'cursor' } }],
    ['after sent twice', { given: `after=${realCursor}&after=${realCursor}`, want: { parameter: 'after', keyword: 'unique' } }],
  ];
  test.for(refused)('refuses %s with 422 naming the parameter', async ([, { given, want }]) => {
    await createClients(2);
    const response = await server.request(`/client?${given}`);
    const problem = await expectValidation(response, [want.parameter], '/client');
    expect(problem.errors).toEqual([expect.objectContaining({ parameter: want.parameter, keyword: want.keyword, detail: expect.any(String) })]);
  });

  test('a cursor made by the service, for a position with no client, is accepted', async () => {
    const response = await server.request(`/client?limit=5&after=${realCursor}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);
  });

  test('paging needs an API key like the whole list (D03)', async () => {
    await expectProblem(await server.request('/client?limit=1', { apiKey: null }), 401, '/problems/unauthorized', '/client');
  });
});
