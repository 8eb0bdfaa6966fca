//! The header of klog lines, the log format of Kubernetes components and OpenShift's operators
//! (`I0101 01:02:03.000000   1 file.go:1] message`): its time has a month and a day but no year.

use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time};

/// The month, day and time of a klog header (`I0101 01:02:03.000000 ...`), which has no year.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KlogTime {
    month: u8,
    day: u8,
    time: Time,
}

/// The time in a klog header: `I0101 01:02:03.000000   1 file.go:1] message` (I, W, E or F).
pub(crate) fn klog_time(line: &str) -> Option<KlogTime> {
    let line = line.trim_start();
    let bytes = line.as_bytes();
    if !matches!(bytes.first(), Some(b'I' | b'W' | b'E' | b'F')) {
        return None;
    }
    let digits =
        |from: usize, len: usize| -> Option<u8> { line.get(from..from + len)?.parse().ok() };
    let (month, day) = (digits(1, 2)?, digits(3, 2)?);
    if bytes.get(5) != Some(&b' ') || bytes.get(8) != Some(&b':') || bytes.get(11) != Some(&b':') {
        return None;
    }
    let time = Time::from_hms(digits(6, 2)?, digits(9, 2)?, digits(12, 2)?).ok()?;
    Some(KlogTime { month, day, time })
}

impl KlogTime {
    /// This month, day and time in the year of `end`, or the year before when that would come
    /// after `end` (a log that started in December, read in January).
    pub(crate) fn in_year_before(self, end: OffsetDateTime) -> Option<OffsetDateTime> {
        let at = |year: i32| -> Option<OffsetDateTime> {
            let month = Month::try_from(self.month).ok()?;
            let date = Date::from_calendar_date(year, month, self.day).ok()?;
            Some(PrimitiveDateTime::new(date, self.time).assume_utc())
        };
        match at(end.year()) {
            Some(this_year) if this_year <= end => Some(this_year),
            // Also 29 February read in a year without one.
            _ => at(end.year() - 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_klog_time_takes_the_year_of_the_gather() {
        let time = klog_time("I1231 23:50:00.000000 1 a.go:1] x").unwrap();
        let end = OffsetDateTime::parse(
            "2027-01-01T00:10:00Z",
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap();
        assert_eq!(time.in_year_before(end).unwrap().year(), 2026);
        assert!(klog_time("Launching server on :22623").is_none());
    }
}
