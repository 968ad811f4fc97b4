import { describe, expect, it } from 'vitest';
import { Osc99Parser, parseOsc777, parseOsc9 } from './osc';

describe('OSC 9', () => {
  it('is a body', () => {
    expect(parseOsc9('Build finished')).toEqual({ title: '', body: 'Build finished' });
  });
  it("is not ConEmu's progress and other numbered sub-commands", () => {
    expect(parseOsc9('4;1;50')).toBeNull();
    expect(parseOsc9('1;100')).toBeNull();
    expect(parseOsc9('')).toBeNull();
  });
  it('drops control characters and clips long text', () => {
    expect(parseOsc9('a\u0007b\u001bc')?.body).toBe('a b c');
    expect(parseOsc9('x'.repeat(2000))?.body.length).toBe(512);
  });
});

describe('OSC 777', () => {
  it('notify;title;body (the body may hold semicolons)', () => {
    expect(parseOsc777('notify;Tests;3 failed; 2 skipped')).toEqual({ title: 'Tests', body: '3 failed; 2 skipped' });
    expect(parseOsc777('notify;Only a title')).toEqual({ title: 'Only a title', body: '' });
  });
  it('ignores other 777 commands and empty ones', () => {
    expect(parseOsc777('preexec')).toBeNull();
    expect(parseOsc777('notify;;')).toBeNull();
  });
});

describe('OSC 99 (kitty)', () => {
  it('a lone title', () => {
    expect(new Osc99Parser().feed(';Hello world')).toEqual({ title: 'Hello world', body: '' });
  });
  it('title and body in chunks under one id', () => {
    const p = new Osc99Parser();
    expect(p.feed('i=1:d=0;Hello')).toBeNull();
    expect(p.feed('i=1:d=0; world')).toBeNull();
    expect(p.feed('i=1:p=body;This is the body')).toEqual({ title: 'Hello world', body: 'This is the body' });
    // The id is done: a new one starts empty.
    expect(p.feed('i=1:p=body;again')).toEqual({ title: '', body: 'again' });
  });
  it('base64 payloads (e=1)', () => {
    expect(new Osc99Parser().feed(`e=1;${btoa('Grüße'.replace(/./gu, (c) => String.fromCharCode(...new TextEncoder().encode(c))))}`)).toEqual({ title: 'Grüße', body: '' });
  });
  it('ignores what it does not show (icons, queries) and bad input', () => {
    const p = new Osc99Parser();
    expect(p.feed('p=icon;abc')).toBeNull();
    expect(p.feed('p=?;')).toBeNull();
    expect(p.feed('no separator')).toBeNull();
    expect(p.feed('e=1;%%%')).toBeNull();
  });
});
