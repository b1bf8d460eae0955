//! Enums named on the command line and in reports (kinds of chunking, verdicts): one way to
//! read a name back, with an error that lists every name.

/// The item of `all` whose `name` is `text`; else an error naming `what` and every name.
pub(crate) fn parse<T: Copy>(
    all: &[T],
    name: impl Fn(T) -> &'static str,
    what: &str,
    text: &str,
) -> Result<T, String> {
    all.iter()
        .copied()
        .find(|&item| name(item) == text)
        .ok_or_else(|| {
            let known: Vec<&str> = all.iter().map(|&item| name(item)).collect();
            format!("unknown {what} \"{text}\" (known: {})", known.join(", "))
        })
}
