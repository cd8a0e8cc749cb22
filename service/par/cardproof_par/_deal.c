/* The deal's shuffle (docs/protocol.md section 3, steps 3 to 5) in C: the service's fast path.
 *
 * cardproof.deal.shuffle reads a deck's order from the stream keyed by a shuffle's
 * stream key: block k is HMAC-SHA256(key, k as 8 bytes big-endian), read as big-endian
 * 32-bit words, one word a draw; draw d (d = 0, 1, ...) is below n = size - d, by
 * rejection (a word x is taken when x < 2^32 - 2^32 mod n, as x mod n), and swaps
 * places n - 1 and x mod n (Fisher-Yates from the top). In Python that is about 14 us
 * a deal, most of it 42 calls into hashlib; here it is one call of about 1 us, SHA-256
 * from OpenSSL's libcrypto (the SHA extensions where the CPU has them). The stream key
 * itself (step 2: HMAC-SHA256 under the server seed of the message Python builds and
 * checks) is derived here too.
 *
 * Only the fast path lives here: when a word is rejected (about 1 deal in 6 million)
 * shuffle() answers None and the Python module reads the stream word by word, so the
 * rules stay in one place and this file holds nothing the Python one does not check.
 * tests/test_deal_kernel.py holds both to the same orders.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <openssl/sha.h>
#include <stdint.h>
#include <string.h>

#define KEY_BYTES 32
#define HASH_BLOCK 64
#define MAX_SIZE 64 /* the largest deck is 56 cards: 7 blocks */

/* HMAC-SHA256's keyed inner and outer states (RFC 2104), for a key of 32 bytes. */
static void keyed(const unsigned char *key, SHA256_CTX *inner, SHA256_CTX *outer) {
    unsigned char pad[HASH_BLOCK];
    memset(pad, 0x36, sizeof pad);
    for (int i = 0; i < KEY_BYTES; i++) pad[i] ^= key[i];
    SHA256_Init(inner);
    SHA256_Update(inner, pad, sizeof pad);
    memset(pad, 0x5c, sizeof pad);
    for (int i = 0; i < KEY_BYTES; i++) pad[i] ^= key[i];
    SHA256_Init(outer);
    SHA256_Update(outer, pad, sizeof pad);
}

/* HMAC-SHA256(key, message) from the keyed states, into out (32 bytes). */
static void finish(const SHA256_CTX *inner, const SHA256_CTX *outer, const unsigned char *message,
                   size_t length, unsigned char *out) {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256_CTX step = *inner;
    SHA256_Update(&step, message, length);
    SHA256_Final(digest, &step);
    step = *outer;
    SHA256_Update(&step, digest, sizeof digest);
    SHA256_Final(out, &step);
}

/* The stream's first `blocks` blocks: block k is HMAC-SHA256(key, u64be(k)). */
static void first_blocks(const unsigned char *key, int blocks, unsigned char *out) {
    SHA256_CTX inner, outer;
    keyed(key, &inner, &outer);
    for (int k = 0; k < blocks; k++) {
        unsigned char counter[8] = {0};
        for (int i = 0; i < 8; i++) counter[7 - i] = (unsigned char)((uint64_t)k >> (8 * i));
        finish(&inner, &outer, counter, sizeof counter, out + SHA256_DIGEST_LENGTH * k);
    }
}

/* shuffle(seed, message, size) -> the order (size indices), or None when a word is rejected. */
static PyObject *py_shuffle(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer seed, message;
    int size;
    if (!PyArg_ParseTuple(args, "y*y*i", &seed, &message, &size)) return NULL;
    if (seed.len != KEY_BYTES || size < 2 || size > MAX_SIZE) {
        PyBuffer_Release(&seed);
        PyBuffer_Release(&message);
        PyErr_Format(PyExc_ValueError, "shuffle takes a %d-byte seed and a size of 2 to %d",
                     KEY_BYTES, MAX_SIZE);
        return NULL;
    }
    unsigned char key[SHA256_DIGEST_LENGTH];
    SHA256_CTX inner, outer;
    keyed((const unsigned char *)seed.buf, &inner, &outer);
    finish(&inner, &outer, (const unsigned char *)message.buf, (size_t)message.len, key);
    PyBuffer_Release(&seed);
    PyBuffer_Release(&message);
    int blocks = (size + 6) / 8; /* size - 1 draws, 8 words a block */
    unsigned char stream[SHA256_DIGEST_LENGTH * (MAX_SIZE / 8)];
    first_blocks(key, blocks, stream);
    int deck[MAX_SIZE];
    for (int i = 0; i < size; i++) deck[i] = i;
    for (int d = 0; d < size - 1; d++) {
        const unsigned char *w = stream + 4 * d;
        uint32_t x = (uint32_t)w[0] << 24 | (uint32_t)w[1] << 16 | (uint32_t)w[2] << 8 | w[3];
        uint32_t n = (uint32_t)(size - d);
        uint64_t limit = (uint64_t)1 << 32;
        limit -= limit % n;
        if (x >= limit) Py_RETURN_NONE; /* the word-by-word reader skips it */
        int i = (int)n - 1, j = (int)(x % n), held = deck[i];
        deck[i] = deck[j];
        deck[j] = held;
    }
    PyObject *order = PyTuple_New(size);
    if (order == NULL) return NULL;
    for (int i = 0; i < size; i++) {
        PyObject *index = PyLong_FromLong(deck[i]);
        if (index == NULL) {
            Py_DECREF(order);
            return NULL;
        }
        PyTuple_SET_ITEM(order, i, index);
    }
    return order;
}

static PyMethodDef methods[] = {

    {"shuffle", py_shuffle, METH_VARARGS,
     "shuffle(seed, message, size) -> the shuffled order of indices 0..size-1 read from the "
     "stream keyed by HMAC-SHA256(seed, message) (a 32-byte server seed, the stream key's "
     "message), or None when a word is rejected (read the stream word by word then)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_deal",
                                    "The deal's shuffle, compiled: the service's fast path.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__deal(void) { return PyModule_Create(&module); }
