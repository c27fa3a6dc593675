/* mangled.c: an upper estimate of an Itanium C++ name's demangled length, in one pass (mangled.h).
 *
 * A recursive-descent reading of the parts of the grammar that kernel names use (nested and local
 * names, templates, builtin and qualified types, function and array types, literals, lambdas,
 * substitutions, template parameters) that computes sizes instead of text. Each piece's size is an
 * upper bound of what libstdc++ prints for it; a substitution candidate's size is recorded when the
 * piece is complete, in the order libstdc++'s demangler (libiberty's cp-demangle.c) numbers them,
 * so that S<n>_ costs what candidate n costs: this is what makes the doubling names visible without
 * printing them. A template parameter T<n>_ costs the largest template argument seen so far.
 * Sizes saturate at SAT, so no sum overflows.
 *
 * Where the reading meets grammar it does not know, it gives up on the structure and falls back on
 * a bound that needs none: every reference may double what precedes it.
 */
#include "common/mangled.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SAT ((uint64_t)1 << 40)

struct est {
	const char *p, *end;
	uint64_t *subs;            /* sizes of the substitution candidates, in order */
	size_t nsubs, capsubs;
	uint64_t targ_max;         /* largest template argument seen */
	uint64_t pack_max;         /* most elements in an argument pack seen (at least 1) */
	int depth;
	int unknown;               /* met grammar this reading does not know */
	int deep;                  /* nested deeper than GT_DEMANGLE_MAX_DEPTH */
};

static uint64_t add(uint64_t a, uint64_t b) { return a + b >= SAT ? SAT : a + b; }

static int peek(const struct est *e) { return e->p < e->end ? (unsigned char)*e->p : 0; }
static int peek2(const struct est *e) { return e->p + 1 < e->end ? (unsigned char)e->p[1] : 0; }
/* Moves on n bytes, never past the end (a name may stop in the middle of anything). */
static void skip(struct est *e, size_t n)
{
	size_t left = (size_t)(e->end - e->p);
	e->p += n < left ? n : left;
}

static int eat(struct est *e, int c)
{
	if (peek(e) != c)
		return 0;
	e->p++;
	return 1;
}

static uint64_t fail(struct est *e)
{
	e->unknown = 1;
	e->p = e->end; /* stop reading: the fallback bound takes over */
	return 0;
}

/* Records a complete substitution candidate; capsubs is the name's length, and every candidate
 * consumes at least one byte, so the array never fills. */
static uint64_t sub(struct est *e, uint64_t size)
{
	if (e->nsubs < e->capsubs)
		e->subs[e->nsubs++] = size;
	return size;
}

static int enter(struct est *e)
{
	if (++e->depth > GT_DEMANGLE_MAX_DEPTH) {
		e->deep = 1;
		e->p = e->end;
		return 0;
	}
	return 1;
}
static uint64_t leave(struct est *e, uint64_t size)
{
	e->depth--;
	return size;
}

/* <number>: decimal, optionally negative ("n"); *digits gets how many bytes it took. */
static uint64_t number(struct est *e, size_t *digits)
{
	const char *s = e->p;
	eat(e, 'n');
	uint64_t v = 0;
	while (peek(e) >= '0' && peek(e) <= '9') {
		v = v > SAT / 10 ? SAT : v * 10 + (uint64_t)(*e->p - '0');
		skip(e, 1);
	}
	if (digits)
		*digits = (size_t)(e->p - s);
	return v;
}

/* <seq-id> _: base 36, empty for the first; returns index + 1, or 0 for "_" alone. */
static uint64_t seq_id(struct est *e, int *ok)
{
	uint64_t v = 0;
	int any = 0;
	for (;;) {
		int c = peek(e);
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'Z' ? c - 'A' + 10 : -1;
		if (d < 0)
			break;
		v = v > SAT / 36 ? SAT : v * 36 + (uint64_t)d;
		any = 1;
		skip(e, 1);
	}
	*ok = eat(e, '_');
	return any ? v + 1 : 0;
}

/* <source-name>: <length> <identifier>; "_GLOBAL__N..." prints as "(anonymous namespace)". */
static uint64_t source_name(struct est *e)
{
	size_t digits;
	uint64_t n = number(e, &digits);
	if (!digits || n == 0 || n > (uint64_t)(e->end - e->p))
		return fail(e);
	uint64_t s = n >= 10 && strncmp(e->p, "_GLOBAL__N", 10) == 0 && n < 21 ? 21 : n;
	skip(e, (size_t)n);
	return s;
}

static uint64_t type(struct est *e);
static uint64_t name(struct est *e, int *is_template);
static uint64_t encoding(struct est *e);
static uint64_t template_param(struct est *e);

/* <discriminator>: _ <digit> or __ <number> _; not printed. */
static void discriminator(struct est *e)
{
	if (!eat(e, '_'))
		return;
	if (eat(e, '_')) {
		number(e, NULL);
		eat(e, '_');
	} else {
		number(e, NULL);
	}
}

/* Types up to 'E' (or the end), each followed by ", " when printed. */
static uint64_t type_list(struct est *e)
{
	uint64_t s = 2;
	while (peek(e) && peek(e) != 'E' && peek(e) != '.' && !e->unknown && !e->deep)
		s = add(s, add(type(e), 2));
	return s;
}

/* <expr-primary> in a template argument: L <type> <value> E, or L _Z <encoding> E. */
static uint64_t literal(struct est *e)
{
	uint64_t s;
	if (peek(e) == '_' && peek2(e) == 'Z') {
		skip(e, 2);
		s = add(encoding(e), 1);
	} else {
		s = add(type(e), 2);
		const char *v = e->p;
		while (peek(e) && peek(e) != 'E')
			skip(e, 1);
		s = add(s, (size_t)(e->p - v) < 5 ? 5 : (uint64_t)(e->p - v)); /* "false" */
	}
	if (!eat(e, 'E'))
		return fail(e);
	return s;
}

/* Operator codes of expressions and their operand counts: the ones enable_if and array bounds use
 * in kernel names ("XntT5_E": !T5). 0: not an expression operator read here. */
static int arity(char a, char b)
{
	static const char *const unary[] = { "nt", "ng", "ps", "co", "ad", "de", "sz", "az", "pp", "mm" };
	static const char *const binary[] = { "pl", "mi", "ml", "dv", "rm", "an", "or", "eo", "ls", "rs",
		"lt", "gt", "le", "ge", "eq", "ne", "aa", "oo", "ss" };
	for (size_t i = 0; i < sizeof unary / sizeof unary[0]; i++)
		if (unary[i][0] == a && unary[i][1] == b)
			return 1;
	for (size_t i = 0; i < sizeof binary / sizeof binary[0]; i++)
		if (binary[i][0] == a && binary[i][1] == b)
			return 2;
	return a == 'q' && b == 'u' ? 3 : 0;
}

/* <expression>, the common part: template parameters, literals, function parameters, sizeof and
 * alignof of a type, casts, and operators of one to three operands; each printed in parentheses. */
static uint64_t expression(struct est *e)
{
	if (!enter(e))
		return 0;
	int c = peek(e), d = peek2(e);
	uint64_t s;
	if (c == 'T') {
		s = template_param(e);
	} else if (c == 'L') {
		skip(e, 1);
		s = literal(e);
	} else if (c == 'f' && d == 'p') { /* {parm#n} */
		skip(e, 2);
		while (peek(e) == 'r' || peek(e) == 'V' || peek(e) == 'K')
			skip(e, 1);
		size_t digits;
		number(e, &digits);
		s = eat(e, '_') ? add(8, digits) : fail(e);
	} else if ((c == 's' || c == 'a') && d == 't') { /* sizeof (type), alignof (type) */
		skip(e, 2);
		s = add(type(e), 12);
	} else if (c == 'c' && d == 'v' && e->p + 2 < e->end && e->p[2] != '_') { /* (type) expr */
		skip(e, 2);
		s = add(type(e), 2);
		s = add(s, expression(e));
	} else if (c && d && arity((char)c, (char)d)) {
		int n = arity((char)c, (char)d);
		skip(e, 2);
		s = 12;
		for (int i = 0; i < n && !e->unknown; i++)
			s = add(s, expression(e));
	} else {
		s = fail(e);
	}
	return leave(e, add(s, 2));
}

static uint64_t template_arg(struct est *e)
{
	switch (peek(e)) {
	case 'L':
		skip(e, 1);
		return literal(e);
	case 'J': { /* an argument pack */
		skip(e, 1);
		uint64_t s = 0, n = 0;
		while (peek(e) && peek(e) != 'E' && !e->unknown && !e->deep) {
			s = add(s, add(template_arg(e), 2));
			n++;
		}
		if (n > e->pack_max)
			e->pack_max = n;
		if (!eat(e, 'E'))
			return fail(e);
		return s;
	}
	case 'X': {
		skip(e, 1);
		uint64_t s = expression(e);
		if (!eat(e, 'E'))
			return fail(e);
		return s;
	}
	default:
		return type(e);
	}
}

/* <template-args>: I <arg>+ E, printed "<a, b>". */
static uint64_t template_args(struct est *e)
{
	if (!enter(e))
		return 0;
	skip(e, 1); /* 'I' */
	uint64_t s = 3;
	while (peek(e) && peek(e) != 'E' && !e->unknown && !e->deep) {
		uint64_t a = template_arg(e);
		if (a > e->targ_max)
			e->targ_max = a;
		s = add(s, add(a, 2));
	}
	if (!eat(e, 'E'))
		return leave(e, fail(e));
	return leave(e, s);
}

/* S_, S<seq-id>_ and the standard abbreviations (St is handled by the callers: it is a prefix). */
static uint64_t substitution(struct est *e)
{
	skip(e, 1); /* 'S' */
	int c = peek(e);
	if (c == 'a' || c == 'b' || c == 's' || c == 'i' || c == 'o' || c == 'd') {
		skip(e, 1);
		return 72; /* the longest, Ss: "std::basic_string<char, std::char_traits<char>, ...>" */
	}
	int ok;
	uint64_t i = seq_id(e, &ok);
	if (!ok || i >= e->nsubs)
		return fail(e);
	return e->subs[i];
}

/* T_, T<n>_: the largest template argument seen. Which argument list a parameter refers to
 * depends on where it stands (a local name's function, a lambda's enclosing template), and this
 * reading does not follow that; the largest of all is an upper bound wherever it stands. */
static uint64_t template_param(struct est *e)
{
	skip(e, 1); /* 'T' */
	number(e, NULL);
	if (!eat(e, '_'))
		return fail(e);
	return e->targ_max;
}

/* <operator-name>: two lowercase letters ("operator()" and the like), cv <type> (a conversion),
 * li <source-name> (a literal operator), v <digit> <source-name> (a vendor's). */
static uint64_t operator_name(struct est *e)
{
	char a = e->p[0], b = (char)peek2(e);
	if (!b)
		return fail(e);
	skip(e, 2);
	if (a == 'c' && b == 'v')
		return add(type(e), 9);
	if (a == 'l' && b == 'i')
		return add(source_name(e), 11);
	if (a == 'v' && b >= '0' && b <= '9')
		return add(source_name(e), 9);
	return 20;
}

/* <unqualified-name>; last is the size of the name before it, for a constructor's or destructor's
 * name ("C1", "D2"), which repeats the class's. */
static uint64_t unqualified_name(struct est *e, uint64_t last)
{
	int c = peek(e);
	uint64_t s;
	if (c == 'L') { /* internal linkage */
		skip(e, 1);
		c = peek(e);
	}
	if (c >= '0' && c <= '9') {
		s = source_name(e);
	} else if (c >= 'a' && c <= 'z') {
		s = operator_name(e);
	} else if (c == 'C' || c == 'D') {
		if (c == 'D' && (peek2(e) == 'C' || peek2(e) == 'T' || peek2(e) == 't'))
			return fail(e); /* structured bindings, decltype: not read here */
		if (c == 'C' && peek2(e) == 'I') { /* inheriting constructor: CI1 <type> */
			skip(e, 3);
			s = add(last, add(type(e), 1));
		} else {
			skip(e, 2);
			s = add(last, 1);
		}
	} else if (c == 'U' && peek2(e) == 't') { /* {unnamed type#n} */
		skip(e, 2);
		size_t digits;
		number(e, &digits);
		if (!eat(e, '_'))
			return fail(e);
		s = sub(e, add(16, digits));
	} else if (c == 'U' && peek2(e) == 'l') { /* {lambda(params)#n} */
		skip(e, 2);
		s = type_list(e);
		if (!eat(e, 'E'))
			return fail(e);
		size_t digits;
		number(e, &digits);
		if (!eat(e, '_'))
			return fail(e);
		s = add(s, add(12, digits)); /* not a candidate by itself, unlike an unnamed type */
	} else {
		return fail(e);
	}
	discriminator(e);
	while (peek(e) == 'B') { /* [abi:tag] */
		skip(e, 1);
		s = add(s, add(source_name(e), 6));
	}
	return s;
}

/* <nested-name>: N [<CV-qualifiers>] [<ref-qualifier>] <prefix> <unqualified-name> E. Each prefix
 * is a candidate, except the whole name (its caller decides) and a bare substitution. */
static uint64_t nested_name(struct est *e, int *is_template)
{
	skip(e, 1); /* 'N' */
	uint64_t s = 0, last = 0;
	while (peek(e) == 'r' || peek(e) == 'V' || peek(e) == 'K')
		s = add(s, 9), skip(e, 1);
	if (peek(e) == 'R' || peek(e) == 'O')
		s = add(s, 3), skip(e, 1);
	uint64_t ret = 0;
	int any = 0;
	while (peek(e) && peek(e) != 'E' && !e->unknown && !e->deep) {
		int c = peek(e);
		*is_template = 0;
		if (c == 'M') { /* a lambda's initializer scope */
			skip(e, 1);
			continue;
		}
		if (c == 'I') {
			if (!any)
				return fail(e);
			ret = add(ret, template_args(e));
			*is_template = 1;
		} else if (c == 'T') {
			ret = template_param(e);
		} else if (c == 'S' && peek2(e) != 't') {
			ret = substitution(e);
			any = 1;
			continue;
		} else {
			if (c == 'S') { /* St: "std::" */
				skip(e, 2);
				ret = add(ret, 5);
			}
			last = unqualified_name(e, last);
			ret = add(ret, add(last, any ? 2 : 0));
		}
		any = 1;
		if (peek(e) != 'E')
			sub(e, ret);
	}
	if (!eat(e, 'E'))
		return fail(e);
	return add(s, ret);
}

/* <local-name>: Z <encoding> E (s | <name>) [<discriminator>]: "f()::x". */
static uint64_t local_name(struct est *e)
{
	skip(e, 1); /* 'Z' */
	uint64_t s = encoding(e);
	if (!eat(e, 'E'))
		return fail(e);
	if (eat(e, 's')) {
		s = add(s, 16); /* ::string literal */
	} else {
		int t;
		s = add(s, add(name(e, &t), 2));
	}
	discriminator(e);
	return s;
}

/* <name>, unscoped or not; *is_template: it ends in template arguments (a function template has
 * a return type). Unscoped template names are candidates; the whole name is its caller's. */
static uint64_t name(struct est *e, int *is_template)
{
	*is_template = 0;
	int c = peek(e);
	if (c == 'N')
		return nested_name(e, is_template);
	if (c == 'Z')
		return local_name(e);
	uint64_t s;
	int subst = 0;
	if (c == 'S' && peek2(e) == 't') {
		skip(e, 2);
		s = add(5, unqualified_name(e, 0));
	} else if (c == 'S') {
		s = substitution(e);
		subst = 1;
	} else {
		s = unqualified_name(e, 0);
	}
	if (peek(e) == 'I') {
		if (!subst)
			sub(e, s);
		s = add(s, template_args(e));
		*is_template = 1;
	}
	return s;
}

/* A builtin type's printed length, or 0 when c is not one. */
static uint64_t builtin(int c)
{
	switch (c) {
	case 'v': return 4;  /* void */
	case 'w': return 7;  /* wchar_t */
	case 'b': return 4;  /* bool */
	case 'c': case 'i': return 4;
	case 'a': return 11; /* signed char */
	case 'h': return 13; /* unsigned char */
	case 's': return 5;  /* short */
	case 't': return 14; /* unsigned short */
	case 'j': return 12; /* unsigned int */
	case 'l': return 4;  /* long */
	case 'm': return 13; /* unsigned long */
	case 'x': return 9;  /* long long */
	case 'y': return 18; /* unsigned long long */
	case 'n': return 8;  /* __int128 */
	case 'o': return 17; /* unsigned __int128 */
	case 'f': return 5;
	case 'd': return 6;
	case 'e': return 11; /* long double */
	case 'g': return 10; /* __float128 */
	case 'z': return 3;  /* ... */
	default: return 0;
	}
}

/* D-prefixed types: pack expansions and vectors are candidates, the builtins are not. */
static uint64_t d_type(struct est *e)
{
	int c = peek2(e);
	skip(e, 2);
	switch (c) {
	case 'p': {
		/* Each element of the pack gets the pattern's qualifiers ("T const&..." is "a const&,
		 * b const&"): the pattern's size times the largest pack bounds that. */
		uint64_t s = type(e);
		s = s > SAT / e->pack_max ? SAT : s * e->pack_max;
		return sub(e, add(s, 3));
	}
	case 'v': {
		size_t digits;
		number(e, &digits);
		if (!eat(e, '_'))
			return fail(e);
		return sub(e, add(type(e), add(12, digits)));
	}
	case 'n': return 17; /* decltype(nullptr) */
	case 'a': case 'c': return 14; /* auto, decltype(auto) */
	case 'f': case 'd': case 'e': case 'h': case 'i': case 's': case 'u': return 10;
	case 'F':
		number(e, NULL);
		eat(e, 'x');
		if (!eat(e, '_'))
			return fail(e);
		return 10;
	case 'T': case 't': { /* decltype (expression) */
		uint64_t s = add(expression(e), 10);
		if (!eat(e, 'E'))
			return fail(e);
		return sub(e, s);
	}
	default:
		return fail(e); /* the rest: not read here */
	}
}

/* <function-type>: F [Y] <return type> <parameters> [<ref-qualifier>] E, "ret (*)(params)". */
static uint64_t function_type(struct est *e)
{
	skip(e, 1); /* 'F' */
	eat(e, 'Y');
	uint64_t s = add(type(e), 6);
	s = add(s, type_list(e));
	if (peek(e) == 'R' || peek(e) == 'O')
		skip(e, 1), s = add(s, 3);
	if (!eat(e, 'E'))
		return fail(e);
	return s;
}

static uint64_t type_inner(struct est *e)
{
	int c = peek(e);
	uint64_t b = builtin(c);
	if (b) {
		skip(e, 1);
		return b;
	}
	switch (c) {
	case 'r': case 'V': case 'K':
		skip(e, 1);
		return sub(e, add(type(e), 9));
	case 'P': case 'R': case 'O': case 'C': case 'G':
		skip(e, 1);
		return sub(e, add(type(e), 3));
	case 'F':
		return sub(e, function_type(e));
	case 'A': {
		skip(e, 1);
		uint64_t bound = 0;
		if (peek(e) != '_' && (peek(e) < '0' || peek(e) > '9')) {
			bound = expression(e);
		} else {
			size_t digits;
			number(e, &digits);
			bound = digits;
		}
		if (!eat(e, '_'))
			return fail(e);
		return sub(e, add(type(e), add(4, bound)));
	}
	case 'M': {
		skip(e, 1);
		uint64_t s = type(e);
		return sub(e, add(s, add(type(e), 6)));
	}
	case 'T': {
		uint64_t s = sub(e, template_param(e));
		if (peek(e) == 'I')
			s = sub(e, add(s, template_args(e)));
		return s;
	}
	case 'S':
		if (peek2(e) != 't') {
			uint64_t s = substitution(e);
			if (peek(e) == 'I')
				s = sub(e, add(s, template_args(e)));
			return s;
		}
		break;
	case 'D':
		return d_type(e);
	case 'u':
		skip(e, 1);
		return sub(e, source_name(e));
	case 'N': case 'Z':
	case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8':
	case '9':
		break;
	default:
		return fail(e);
	}
	int t;
	return sub(e, name(e, &t));
}

static uint64_t type(struct est *e)
{
	if (!enter(e))
		return 0;
	return leave(e, type_inner(e));
}

/* <encoding>: <name> [<bare-function-type>], the return type first for a template function. */
static uint64_t encoding(struct est *e)
{
	if (!enter(e))
		return 0;
	if (peek(e) == 'T' || peek(e) == 'G')
		return leave(e, fail(e)); /* vtables, guards, thunks: not kernels */
	int is_template;
	uint64_t s = name(e, &is_template);
	if (peek(e) && peek(e) != 'E' && peek(e) != '.') {
		if (is_template)
			s = add(s, add(type(e), 1));
		s = add(s, type_list(e));
	}
	return leave(e, s);
}

/* The bound that needs no grammar: every S.._ or T.._ may double what precedes it. */
static uint64_t fallback(const char *name, size_t len)
{
	unsigned refs = 0;
	for (size_t i = 0; i + 1 < len; i++)
		if ((name[i] == 'S' || name[i] == 'T') &&
		    (name[i + 1] == '_' || (name[i + 1] >= '0' && name[i + 1] <= '9') ||
		     (name[i + 1] >= 'A' && name[i + 1] <= 'Z')))
			refs++;
	uint64_t s = (uint64_t)len * 4;
	for (unsigned i = 0; i < refs && s < SAT; i++)
		s *= 2;
	return s < SAT ? s : SAT;
}

/* The estimate, or SAT with *deep set when nested too deep. NULL subs: out of memory. */
static uint64_t estimate(const char *name, size_t len, int *deep, int *nomem)
{
	*deep = *nomem = 0;
	struct est e = { .p = name + 2, .end = name + len, .capsubs = len, .pack_max = 1 };
	e.subs = malloc((len ? len : 1) * sizeof *e.subs);
	if (!e.subs) {
		*nomem = 1;
		return SAT;
	}
	uint64_t s = encoding(&e);
	if (peek(&e) == '.') /* a clone suffix: " [clone .constprop.0]" */
		s = add(s, add((uint64_t)(e.end - e.p), 10));
	else if (e.p != e.end)
		e.unknown = 1;
	free(e.subs);
	*deep = e.deep;
	return e.deep ? SAT : e.unknown ? fallback(name, len) : s;
}

enum gt_mangled_verdict gt_mangled_check(const char *name, size_t *estimate_out)
{
	size_t len = name ? strlen(name) : 0;
	if (estimate_out)
		*estimate_out = len;
	if (len < 2 || name[0] != '_' || name[1] != 'Z')
		return GT_MANGLED_NOT_MANGLED;
	if (len > GT_DEMANGLE_MAX_MANGLED)
		return GT_MANGLED_TOO_LONG;
	int deep, nomem;
	uint64_t s = estimate(name, len, &deep, &nomem);
	if (estimate_out)
		*estimate_out = (size_t)s;
	if (deep)
		return GT_MANGLED_TOO_DEEP;
	if (nomem || s > GT_DEMANGLE_MAX_DEMANGLED)
		return GT_MANGLED_TOO_LARGE;
	return GT_MANGLED_OK;
}

const char *gt_mangled_verdict_text(enum gt_mangled_verdict v)
{
	switch (v) {
	case GT_MANGLED_OK: return "within the caps";
	case GT_MANGLED_NOT_MANGLED: return "not a mangled name";
	case GT_MANGLED_TOO_LONG: return "longer than 16384 bytes";
	case GT_MANGLED_TOO_DEEP: return "nested more than 256 levels deep";
	case GT_MANGLED_TOO_LARGE: return "its demangled form would pass 65536 bytes";
	}
	return "?";
}
