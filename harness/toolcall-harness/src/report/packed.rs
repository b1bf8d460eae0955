//! Data packed into a page as text (`specs/matrix.md` M2.5): zlib-compressed (RFC 1950), then
//! base64 (RFC 4648), which a browser unpacks with `atob` and `DecompressionStream("deflate")`
//! from a page opened from disk, with nothing fetched. The same data always packs to the same
//! text: the level is fixed and zlib writes no timestamp. Base64's alphabet has no `<`, `>` or
//! `&`, so the text cannot end the `<script>` element that holds it.

use miniz_oxide::deflate::compress_to_vec_zlib;
use miniz_oxide::inflate::decompress_to_vec_zlib;

/// miniz's best ratio: the matrix page is written once per regeneration and read many times.
const LEVEL: u8 = 9;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `data` compressed and written in base64.
pub fn pack(data: &[u8]) -> String {
    base64(&compress_to_vec_zlib(data, LEVEL))
}

/// The data [`pack`] packed into `text` (ASCII whitespace around it ignored); `None` when
/// `text` is not such a packing.
pub fn unpack(text: &str) -> Option<Vec<u8>> {
    decompress_to_vec_zlib(&from_base64(text.trim())?).ok()
}

fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let n = group
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= group.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn from_base64(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for group in text.chunks(4) {
        let padding = group.iter().rev().take_while(|&&c| c == b'=').count();
        if padding > 2 {
            return None;
        }
        let mut n = 0u32;
        for (i, &c) in group[..4 - padding].iter().enumerate() {
            let value = ALPHABET.iter().position(|&a| a == c)?;
            n |= (value as u32) << (18 - 6 * i);
        }
        out.extend(n.to_be_bytes()[1..4 - padding].iter());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_rfc_4648() {
        for (bytes, text) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (b"fooba", "Zm9vYmE="),
            (b"foobar", "Zm9vYmFy"),
            (&[0xfb, 0xff], "+/8="),
        ] {
            assert_eq!(base64(bytes), text);
            assert_eq!(from_base64(text).as_deref(), Some(bytes));
        }
        for bad in ["Zg=", "Z===", "Zm9v!A==", "===="] {
            assert_eq!(from_base64(bad), None, "{bad}");
        }
    }

    #[test]
    fn packing_round_trips_the_same_way_every_time() {
        let data = "{\"stream\": \"</script>&<\"}".repeat(100);
        let packed = pack(data.as_bytes());
        assert!(!packed.contains(['<', '>', '&']));
        assert!(packed.len() < data.len() / 4, "repetitive data compresses");
        assert_eq!(pack(data.as_bytes()), packed);
        assert_eq!(unpack(&format!("\n{packed}\n")), Some(data.into_bytes()));
        assert_eq!(unpack("Zm9v"), None, "base64 but not zlib");
    }
}
