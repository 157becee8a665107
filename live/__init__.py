"""What live screens read and how they hear of changes: the clock payload and the seat digest every
phone and TV reads, the change notices between processes (in-process or Redis), and announcing a
committed change. Views call it after they commit; services never do."""
