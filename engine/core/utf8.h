/*
 * utf8: display widths of UTF-8 text (show() tables, the screen), and the
 * character classes text parsers share.  Invalid bytes count as one column
 * each; never reads past n.
 */
#ifndef SL_UTF8_H
#define SL_UTF8_H

#include <stddef.h>

/* Display columns of s[0..n) (East Asian wide characters count 2). */
size_t sl_utf8_width(const char *s, size_t n);
/* Byte length of the longest prefix of s[0..n) at most cols columns wide,
 * never splitting a character. */
size_t sl_utf8_prefix(const char *s, size_t n, size_t cols);
/* Length in bytes of the character starting at s (1..4), 1 if invalid. */
size_t sl_utf8_charlen(const char *s, size_t n);
/* Number of characters (code points) in s[0..n) (Spark's length()). */
size_t sl_utf8_count(const char *s, size_t n);
/* Length of the well-formed UTF-8 character at s[0..n) (n >= 1): 1..4 (no
 * overlong form, no surrogate, nothing past U+10FFFF), or 0 when s starts
 * an ill-formed sequence; then *bad (may be NULL) is the length of its
 * maximal subpart, the bytes one U+FFFD replaces (Unicode's "substitution
 * of maximal subparts", what Java's UTF-8 decoder does). */
size_t sl_utf8_valid(const char *s, size_t n, size_t *bad);
/* Offset of the first ill-formed sequence in s[0..n), or n when all of it
 * is well-formed UTF-8 (ASCII 8 bytes at a time). */
size_t sl_utf8_check(const char *s, size_t n);
/* The value of hex digit c (0-9, a-f, A-F), or -1. */
int sl_hex_digit(char c);

#endif
