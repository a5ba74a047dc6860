extension Array {
    /// Makes the array `count` copies of `value`, reusing its storage: how budget
    /// policies clear their per-instance state in `begin(instances:)`, which runs once
    /// per simulated person, without allocating each time (it allocates only when a
    /// person has more instances than any before).
    mutating func resetFlat(count: Int, to value: Element) {
        if self.count > count { removeLast(self.count - count) }
        for i in indices { self[i] = value }
        while self.count < count { append(value) }
    }
}
