package toon

import (
	"strconv"
	"strings"
)

// canonicalNumber rewrites a valid JSON number in the canonical form of §2:
// plain decimal without exponent, leading zeros or trailing fractional
// zeros, and "0" for every zero including -0. It works on the digits, not on
// a float64, so every digit of the input is kept.
//
// Outside 1e-6 ≤ |n| < 1e21 §2 allows exponent form, and it is used there,
// as d[.ddd]e±x (JavaScript's spelling, so 1e21 reads "1e+21" as in the
// reference encoder): plain decimal would turn "1e999999" into a million
// digits.
func canonicalNumber(lit string) string {
	neg := strings.HasPrefix(lit, "-")
	if neg {
		lit = lit[1:]
	}
	if len(lit) <= 21 && strings.IndexAny(lit, ".eE") < 0 {
		// An integer below 1e21: JSON already forbids leading zeros, so
		// only -0 needs rewriting.
		if lit == "0" {
			return "0"
		}
		if neg {
			return "-" + lit
		}
		return lit
	}

	mant, exp := lit, ""
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		mant, exp = lit[:i], lit[i+1:]
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	// The value is 0.<digits> × 10^point; leading zeros move the point,
	// trailing zeros do not matter.
	digits := intPart + frac
	point := len(intPart)
	trimmed := strings.TrimLeft(digits, "0")
	point -= len(digits) - len(trimmed)
	digits = strings.TrimRight(trimmed, "0")
	if digits == "" {
		return "0"
	}

	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	e, err := strconv.ParseInt(exp, 10, 32)
	if exp == "" {
		e, err = 0, nil
	}
	if err != nil {
		// The exponent alone puts the value far outside the plain range;
		// its arithmetic needs more than an int64.
		sci(&b, digits, bigExponent(exp, point))
		return b.String()
	}
	point += int(e)
	switch {
	case point < -5 || point > 21: // |n| < 1e-6 or |n| ≥ 1e21
		sci(&b, digits, strconv.Itoa(point-1))
	case point <= 0: // 0.000ddd
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -point))
		b.WriteString(digits)
	case point >= len(digits): // ddd000
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", point-len(digits)))
	default: // ddd.ddd
		b.WriteString(digits[:point])
		b.WriteByte('.')
		b.WriteString(digits[point:])
	}
	return b.String()
}

// sci writes d[.ddd]e±x, where exp is the decimal exponent of the first
// digit, with its sign written out as §2 recommends.
func sci(b *strings.Builder, digits, exp string) {
	b.WriteByte(digits[0])
	if len(digits) > 1 {
		b.WriteByte('.')
		b.WriteString(digits[1:])
	}
	b.WriteByte('e')
	if !strings.HasPrefix(exp, "-") {
		b.WriteByte('+')
	}
	b.WriteString(exp)
}

// bigExponent returns exp + point - 1 in decimal, for exponents an int32
// cannot hold. |point| is at most the length of the number, far below such
// an exponent, so the sum has the exponent's sign and only its magnitude
// moves: decimal arithmetic on the digits, without math/big, which would
// weigh on the start of every program that links the envelope.
func bigExponent(exp string, point int) string {
	neg := strings.HasPrefix(exp, "-")
	mag := strings.TrimLeft(strings.TrimLeft(exp, "+-"), "0")
	d := point - 1
	if neg {
		d = -d
	}
	out := addSmall(mag, d)
	if neg {
		return "-" + out
	}
	return out
}

// addSmall adds d to the non-negative decimal integer mag, whose value is
// larger than |d|.
func addSmall(mag string, d int) string {
	digits := []byte(mag)
	carry := d
	for i := len(digits) - 1; i >= 0 && carry != 0; i-- {
		v := int(digits[i]-'0') + carry%10
		carry /= 10
		switch {
		case v >= 10:
			v -= 10
			carry++
		case v < 0:
			v += 10
			carry--
		}
		digits[i] = byte('0' + v)
	}
	if carry > 0 {
		digits = append([]byte(strconv.Itoa(carry)), digits...)
	}
	if out := strings.TrimLeft(string(digits), "0"); out != "" {
		return out
	}
	return "0"
}
