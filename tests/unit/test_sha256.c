/* SHA-256 against NIST's published examples (FIPS 180-4 example values: "abc", the empty string,
 * the 448-bit message) and Python hashlib for lengths at the padding boundaries (55, 56, 64
 * bytes: one or two final blocks) and a long message fed in pieces. */
#include <string.h>

#include "lib/sha256.h"
#include "tests/unit/test.h"

static void hex(const uint8_t d[SHA256_DIGEST_LEN], char out[2 * SHA256_DIGEST_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned i = 0; i < SHA256_DIGEST_LEN; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 0xF];
	}
	out[2 * SHA256_DIGEST_LEN] = '\0';
}

static void check_digest(const void *msg, size_t len, const char *want)
{
	uint8_t d[SHA256_DIGEST_LEN];
	char h[2 * SHA256_DIGEST_LEN + 1];

	sha256(msg, len, d);
	hex(d, h);
	CHECK_STR(h, want);
}

static void nist_examples(void)
{
	check_digest("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_digest("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void padding_boundaries(void)
{
	static char a[64];

	memset(a, 'a', sizeof(a));
	check_digest(a, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	check_digest(a, 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	check_digest(a, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

static void incremental(void)
{
	static char a[1000];
	struct sha256 s;
	uint8_t d[SHA256_DIGEST_LEN];
	char h[2 * SHA256_DIGEST_LEN + 1];

	memset(a, 'a', sizeof(a));
	sha256_init(&s);
	for (size_t off = 0, step = 1; off < sizeof(a); off += step, step = step * 2 + 1)
		sha256_update(&s, a + off, off + step <= sizeof(a) ? step : sizeof(a) - off);
	sha256_final(&s, d);
	hex(d, h);
	CHECK_STR(h, "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

TEST_SUITE(sha256) = {
	{ "nist_examples", nist_examples },
	{ "padding_boundaries", padding_boundaries },
	{ "incremental", incremental },
	{ 0, 0 },
};
