(** The sign calculus of certdp.verifier.formula_monotone, rule by rule, as Coq lemmas: a σ-formula
    f(ε, δ) built from constants, ε, δ, −, +, ·, /, ln, exp, sqrt and natural powers is non-increasing
    in ε and in δ on ε > 0, 0 < δ < 1 (`nonincr2 f` of Refine.v) when every node carries a range
    and a direction in each variable by these rules.  The Coq kernel's noise-refinement scripts
    build that derivation node by node (`mnode`) and close `nonincr2 f` with `mono_nonincr2`. *)
From Coq Require Import Reals Lra Lia.
From Interval Require Import Tactic.
From CertDP Require Import Refine.
Open Scope R_scope.

(** A direction: non-decreasing, non-increasing, constant, unknown. *)
Inductive dir := Inc | Dec | Cst | Unk.

Definition dflip (s : dir) : dir := match s with Inc => Dec | Dec => Inc | s => s end.
(** The direction of a sum (or of a product of non-negative factors): 0 is neutral. *)
Definition dboth (a b : dir) : dir :=
  match a, b with
  | Cst, _ => b | _, Cst => a | Inc, Inc => Inc | Dec, Dec => Dec | _, _ => Unk
  end.
(** The direction of a product whose factors have the signs pa, pb (true: >= 0, false: <= 0). *)
Definition dmul (pa pb : bool) (x y : dir) : dir :=
  let o := dboth (if pa then x else dflip x) (if pb then y else dflip y) in
  if Bool.eqb pa pb then o else dflip o.
Definition dsg (p : bool) (u : R) : Prop := if p then 0 <= u else u <= 0.

Definition incr_on (S : R -> Prop) (h : R -> R) : Prop := forall u v, S u -> S v -> u <= v -> h u <= h v.
Definition decr_on (S : R -> Prop) (h : R -> R) : Prop := forall u v, S u -> S v -> u <= v -> h v <= h u.

Definition mono1 (s : dir) (P : R -> Prop) (h : R -> R) : Prop :=
  match s with
  | Inc => incr_on P h
  | Dec => decr_on P h
  | Cst => forall u v, P u -> P v -> h u = h v
  | Unk => True
  end.

(** A node g of the formula: its values on the domain lie in rg, its directions are se (in ε) and sd (in δ). *)
Definition mnode (g : R -> R -> R) (rg : R -> Prop) (se sd : dir) : Prop :=
  (forall x d, 0 < x -> 0 < d < 1 -> rg (g x d)) /\
  (forall d, 0 < d < 1 -> mono1 se (fun x => 0 < x) (fun x => g x d)) /\
  (forall x, 0 < x -> mono1 sd (fun d => 0 < d < 1) (fun d => g x d)).

Ltac mono_solve := unfold incr_on, decr_on in *; intros u v Pu Pv; try intro Huv;
  repeat match goal with H : forall _ _, _ -> _ -> _ |- _ => specialize (H u v Pu Pv) end;
  repeat match goal with H : ?p -> _, Hp : ?p |- _ => specialize (H Hp) end; nra.

Lemma mono1_comp_incr : forall s (P S : R -> Prop) h phi, incr_on S phi -> (forall u, P u -> S (h u)) ->
  mono1 s P h -> mono1 s P (fun u => phi (h u)).
Proof.
  intros s P S h phi Hphi HS H. destruct s; simpl in *; auto; unfold incr_on, decr_on in *.
  - intros u v Pu Pv Huv. apply Hphi; auto.
  - intros u v Pu Pv Huv. apply Hphi; auto.
  - intros u v Pu Pv. rewrite (H u v Pu Pv). reflexivity.
Qed.

Lemma mono1_comp_decr : forall s (P S : R -> Prop) h phi, decr_on S phi -> (forall u, P u -> S (h u)) ->
  mono1 s P h -> mono1 (dflip s) P (fun u => phi (h u)).
Proof.
  intros s P S h phi Hphi HS H. destruct s; simpl in *; auto; unfold incr_on, decr_on in *.
  - intros u v Pu Pv Huv. apply Hphi; auto.
  - intros u v Pu Pv Huv. apply Hphi; auto.
  - intros u v Pu Pv. rewrite (H u v Pu Pv). reflexivity.
Qed.

Lemma mono1_add : forall s1 s2 (P : R -> Prop) h k, mono1 s1 P h -> mono1 s2 P k -> mono1 (dboth s1 s2) P (fun u => h u + k u).
Proof. intros s1 s2 P h k H1 H2. destruct s1, s2; simpl in *; try exact I; mono_solve. Qed.

Lemma mono1_mul_nn : forall s1 s2 (P : R -> Prop) h k, (forall u, P u -> 0 <= h u) -> (forall u, P u -> 0 <= k u) ->
  mono1 s1 P h -> mono1 s2 P k -> mono1 (dboth s1 s2) P (fun u => h u * k u).
Proof.
  intros s1 s2 P h k N1 N2 H1 H2.
  destruct s1, s2; simpl in *; try exact I; unfold incr_on, decr_on in *; intros u v Pu Pv; try intro Huv;
  pose proof (N1 u Pu); pose proof (N1 v Pv); pose proof (N2 u Pu); pose proof (N2 v Pv);
  repeat match goal with H : forall _ _, P _ -> P _ -> _ |- _ => specialize (H u v Pu Pv) end;
  repeat match goal with H : ?p -> _, Hp : ?p |- _ => specialize (H Hp) end;
  try (rewrite ?H1, ?H2; reflexivity); try rewrite H1 in *; try rewrite H2 in *; nra.
Qed.

Lemma mono1_flip2 : forall s (P : R -> Prop) h, mono1 s P h -> mono1 (dflip (dflip s)) P h.
Proof. intros s P h H. destruct s; exact H. Qed.

Lemma mono1_neg : forall s (P : R -> Prop) h, mono1 s P h -> mono1 (dflip s) P (fun u => - h u).
Proof.
  intros s P h H. apply (mono1_comp_decr s P (fun _ => True) h Ropp); auto.
  intros u v _ _ Huv. lra.
Qed.

(** A product of signed factors, reduced to non-negative ones. *)
Lemma mono1_mul : forall pa pb s1 s2 (P : R -> Prop) h k, (forall u, P u -> dsg pa (h u)) -> (forall u, P u -> dsg pb (k u)) ->
  mono1 s1 P h -> mono1 s2 P k -> mono1 (dmul pa pb s1 s2) P (fun u => h u * k u).
Proof.
  intros pa pb s1 s2 P h k Sa Sb H1 H2. unfold dmul, dsg in *.
  destruct pa, pb; simpl.
  - exact (mono1_mul_nn s1 s2 P h k Sa Sb H1 H2).
  - pose proof (mono1_mul_nn s1 (dflip s2) P h (fun u => - k u) Sa ltac:(intros u Pu; specialize (Sb u Pu); lra)
      H1 (mono1_neg s2 P k H2)) as M.
    pose proof (mono1_neg _ _ _ M) as M'. destruct (dboth s1 (dflip s2)); simpl in *; try exact I;
    unfold incr_on, decr_on in *; intros u v Pu Pv; try intro Huv;
    first [specialize (M' u v Pu Pv Huv) | specialize (M' u v Pu Pv)]; nra.
  - pose proof (mono1_mul_nn (dflip s1) s2 P (fun u => - h u) k ltac:(intros u Pu; specialize (Sa u Pu); lra) Sb
      (mono1_neg s1 P h H1) H2) as M.
    pose proof (mono1_neg _ _ _ M) as M'. destruct (dboth (dflip s1) s2); simpl in *; try exact I;
    unfold incr_on, decr_on in *; intros u v Pu Pv; try intro Huv;
    first [specialize (M' u v Pu Pv Huv) | specialize (M' u v Pu Pv)]; nra.
  - pose proof (mono1_mul_nn (dflip s1) (dflip s2) P (fun u => - h u) (fun u => - k u)
      ltac:(intros u Pu; specialize (Sa u Pu); lra) ltac:(intros u Pu; specialize (Sb u Pu); lra)
      (mono1_neg s1 P h H1) (mono1_neg s2 P k H2)) as M.
    destruct (dboth (dflip s1) (dflip s2)); simpl in *; try exact I;
    unfold incr_on, decr_on in *; intros u v Pu Pv; try intro Huv;
    first [specialize (M u v Pu Pv Huv) | specialize (M u v Pu Pv)]; nra.
Qed.

(** The rules on nodes. *)
Lemma m_const : forall c (rg : R -> Prop), rg c -> mnode (fun _ _ => c) rg Cst Cst.
Proof. intros c rg H. split; [auto | split; intros; simpl; auto]. Qed.

Lemma m_eps : forall rg : R -> Prop, (forall x, 0 < x -> rg x) -> mnode (fun x _ => x) rg Inc Cst.
Proof. intros rg H. split; [auto | split; intros; simpl; auto]. intros u v _ _ Huv. exact Huv. Qed.

Lemma m_delta : forall rg : R -> Prop, (forall d, 0 < d < 1 -> rg d) -> mnode (fun _ d => d) rg Cst Inc.
Proof. intros rg H. split; [auto | split; intros; simpl; auto]. intros u v _ _ Huv. exact Huv. Qed.

Lemma m_pow0 : forall g (rg : R -> Prop), rg 1 -> mnode (fun x d => g x d ^ 0) rg Cst Cst.
Proof. intros g rg H. exact (m_const 1 rg H). Qed.

Lemma m_neg : forall g rg se sd (rc : R -> Prop), mnode g rg se sd -> (forall u, rg u -> rc (- u)) ->
  mnode (fun x d => - g x d) rc (dflip se) (dflip sd).
Proof.
  intros g rg se sd rc [R [E D]] H. split; [intros; apply H; auto | split].
  - intros d Hd. exact (mono1_neg se _ _ (E d Hd)).
  - intros x Hx. exact (mono1_neg sd _ _ (D x Hx)).
Qed.

Lemma m_add : forall a ra s1 t1 b rb s2 t2 (rc : R -> Prop), mnode a ra s1 t1 -> mnode b rb s2 t2 ->
  (forall u v, ra u -> rb v -> rc (u + v)) -> mnode (fun x d => a x d + b x d) rc (dboth s1 s2) (dboth t1 t2).
Proof.
  intros a ra s1 t1 b rb s2 t2 rc [Ra [Ea Da]] [Rb [Eb Db]] H. split; [intros; apply H; auto | split].
  - intros d Hd. exact (mono1_add _ _ _ _ _ (Ea d Hd) (Eb d Hd)).
  - intros x Hx. exact (mono1_add _ _ _ _ _ (Da x Hx) (Db x Hx)).
Qed.

Lemma m_sub : forall a ra s1 t1 b rb s2 t2 (rc : R -> Prop), mnode a ra s1 t1 -> mnode b rb s2 t2 ->
  (forall u v, ra u -> rb v -> rc (u - v)) ->
  mnode (fun x d => a x d - b x d) rc (dboth s1 (dflip s2)) (dboth t1 (dflip t2)).
Proof.
  intros a ra s1 t1 b rb s2 t2 rc Ma Mb H. unfold Rminus.
  apply (m_add a ra s1 t1 (fun x d => - b x d) (fun v => rb (- v))); auto.
  - destruct (m_neg b rb s2 t2 (fun v => rb (- v)) Mb ltac:(intros u Hu; cbv beta; rewrite Ropp_involutive; exact Hu))
      as [R ED]. split; [exact R | exact ED].
  - intros u v Hu Hv. cbv beta in Hv. replace (u + v) with (u - - v) by ring. exact (H u (- v) Hu Hv).
Qed.

Lemma m_mul : forall a ra s1 t1 b rb s2 t2 (rc : R -> Prop) pa pb, mnode a ra s1 t1 -> mnode b rb s2 t2 ->
  (forall u, ra u -> dsg pa u) -> (forall v, rb v -> dsg pb v) -> (forall u v, ra u -> rb v -> rc (u * v)) ->
  mnode (fun x d => a x d * b x d) rc (dmul pa pb s1 s2) (dmul pa pb t1 t2).
Proof.
  intros a ra s1 t1 b rb s2 t2 rc pa pb [Ra [Ea Da]] [Rb [Eb Db]] Sa Sb H. split; [intros; apply H; auto | split].
  - intros d Hd. apply (mono1_mul pa pb); auto.
  - intros x Hx. apply (mono1_mul pa pb); auto.
Qed.

Lemma m_div : forall a ra s1 t1 b rb s2 t2 (rc : R -> Prop) pa pb, mnode a ra s1 t1 ->
  mnode (fun x d => / b x d) rb s2 t2 ->
  (forall u, ra u -> dsg pa u) -> (forall v, rb v -> dsg pb v) -> (forall u v, ra u -> rb v -> rc (u * v)) ->
  mnode (fun x d => a x d / b x d) rc (dmul pa pb s1 s2) (dmul pa pb t1 t2).
Proof. intros. unfold Rdiv. exact (m_mul a ra s1 t1 (fun x d => / b x d) rb s2 t2 rc pa pb H H0 H1 H2 H3). Qed.

(** An increasing function of a node (ln, exp, sqrt, natural powers of a non-negative base). *)
Lemma m_comp_incr : forall g rg se sd (S : R -> Prop) (phi : R -> R) (rc : R -> Prop), mnode g rg se sd ->
  incr_on S phi -> (forall u, rg u -> S u) -> (forall u, rg u -> rc (phi u)) ->
  mnode (fun x d => phi (g x d)) rc se sd.
Proof.
  intros g rg se sd S phi rc [R [E D]] Hphi HS H. split; [intros; apply H; auto | split].
  - intros d Hd. apply (mono1_comp_incr se _ S); auto.
  - intros x Hx. apply (mono1_comp_incr sd _ S); auto.
Qed.

(** A decreasing function of a node (an even power of a non-positive base): the directions flip. *)
Lemma m_comp_decr : forall g rg se sd (S : R -> Prop) (phi : R -> R) (rc : R -> Prop), mnode g rg se sd ->
  decr_on S phi -> (forall u, rg u -> S u) -> (forall u, rg u -> rc (phi u)) ->
  mnode (fun x d => phi (g x d)) rc (dflip se) (dflip sd).
Proof.
  intros g rg se sd S phi rc [R [E D]] Hphi HS H. split; [intros; apply H; auto | split].
  - intros d Hd. apply (mono1_comp_decr se _ S); auto.
  - intros x Hx. apply (mono1_comp_decr sd _ S); auto.
Qed.

(** 1/b for b > 0 or b < 0 on the domain: the directions flip. *)
Lemma inv_decr_pos : decr_on (fun u => 0 < u) Rinv.
Proof. intros u v Hu Hv Huv. apply Rinv_le_contravar; lra. Qed.

Lemma inv_decr_neg : decr_on (fun u => u < 0) Rinv.
Proof.
  intros u v Hu Hv Huv. cbv beta in *. assert (/ (- u) <= / (- v)) by (apply Rinv_le_contravar; lra).
  replace (/ (- u)) with (- / u) in H by (field; lra). replace (/ (- v)) with (- / v) in H by (field; lra). lra.
Qed.

Lemma m_inv : forall g rg se sd (S : R -> Prop) (rc : R -> Prop), mnode g rg se sd -> decr_on S Rinv ->
  (forall u, rg u -> S u) -> (forall u, rg u -> rc (/ u)) -> mnode (fun x d => / g x d) rc (dflip se) (dflip sd).
Proof.
  intros g rg se sd S rc [R [E D]] Hphi HS H. split; [intros; apply H; auto | split].
  - intros d Hd. apply (mono1_comp_decr se _ S); auto.
  - intros x Hx. apply (mono1_comp_decr sd _ S); auto.
Qed.

Lemma ln_le : forall u v, 0 < u -> u <= v -> ln u <= ln v.
Proof. intros u v Hu Huv. destruct (Req_dec u v) as [->|]; [lra | left; apply ln_increasing; lra]. Qed.

Lemma ln_incr : incr_on (fun u => 0 < u) ln.
Proof. intros u v Hu Hv Huv. cbv beta in *. apply ln_le; lra. Qed.

Lemma exp_incr : incr_on (fun _ => True) exp.
Proof. intros u v _ _ Huv. destruct (Req_dec u v) as [->|]; [lra | left; apply exp_increasing; lra]. Qed.

Lemma sqrt_incr : incr_on (fun u => 0 <= u) sqrt.
Proof. intros u v Hu Hv Huv. cbv beta in *. apply sqrt_le_1_alt; lra. Qed.

Lemma pow_incr_on : forall k, incr_on (fun u => 0 <= u) (fun u => u ^ k).
Proof. intros k u v Hu Hv Huv. cbv beta in *. apply pow_incr; lra. Qed.

(** Range facts through increasing functions (the rounded ends: l <= h(a) by interval). *)
Lemma lo_through : forall S h a l u, incr_on S h -> S a -> S u -> a <= u -> l <= h a -> l <= h u.
Proof. intros S h a l u H Sa Su Hau Hl. pose proof (H a u Sa Su Hau). lra. Qed.

Lemma hi_through : forall S h b l u, incr_on S h -> S b -> S u -> u <= b -> h b <= l -> h u <= l.
Proof. intros S h b l u H Sb Su Hub Hl. pose proof (H u b Su Sb Hub). lra. Qed.

Lemma pow_lt_s : forall k a u, (0 < k)%nat -> 0 <= a < u -> a ^ k < u ^ k.
Proof.
  intros k a u Hk Ha. destruct k as [|n]; [inversion Hk|]. simpl.
  pose proof (pow_incr a u n ltac:(lra)). pose proof (pow_lt u n ltac:(lra)). pose proof (pow_le a n ltac:(lra)). nra.
Qed.

(** Natural powers of a base of any sign: odd powers increase on the line, even ones decrease on u <= 0. *)
Lemma pow_opp_odd : forall k x, Nat.odd k = true -> (- x) ^ k = - x ^ k.
Proof.
  intros k x H. replace (- x) with (-1 * x) by ring. rewrite Rpow_mult_distr.
  apply Nat.odd_spec in H. destruct H as [m ->]. replace (2 * m + 1)%nat with (S (2 * m)) by lia.
  rewrite pow_1_odd. ring.
Qed.

Lemma pow_opp_even : forall k x, Nat.even k = true -> (- x) ^ k = x ^ k.
Proof.
  intros k x H. replace (- x) with (-1 * x) by ring. rewrite Rpow_mult_distr.
  apply Nat.even_spec in H. destruct H as [m ->]. rewrite pow_1_even. ring.
Qed.

Lemma pow_odd_lt : forall k u v, Nat.odd k = true -> u < v -> u ^ k < v ^ k.
Proof.
  intros k u v H Huv. assert (Hk : (0 < k)%nat) by (destruct k; [simpl in H; discriminate | lia]).
  destruct (Rle_or_lt 0 u) as [Hu|Hu]; [apply pow_lt_s; [exact Hk | lra]|].
  destruct (Rle_or_lt v 0) as [Hv|Hv].
  - pose proof (pow_lt_s k (- v) (- u) Hk ltac:(lra)) as P. rewrite !pow_opp_odd in P by exact H. lra.
  - pose proof (pow_lt (- u) k ltac:(lra)) as P. rewrite pow_opp_odd in P by exact H.
    pose proof (pow_lt v k Hv). lra.
Qed.

Lemma pow_odd_incr : forall k, Nat.odd k = true -> incr_on (fun _ => True) (fun u => u ^ k).
Proof.
  intros k H u v _ _ Huv. destruct (Req_dec u v) as [->|]; [lra | left; apply pow_odd_lt; [exact H | lra]].
Qed.

Lemma pow_even_decr : forall k, Nat.even k = true -> decr_on (fun u => u <= 0) (fun u => u ^ k).
Proof.
  intros k H u v Hu Hv Huv. cbv beta in *.
  rewrite <- (pow_opp_even k u H), <- (pow_opp_even k v H). apply pow_incr. lra.
Qed.

Lemma sqrt_pos_s : forall u, 0 < u -> 0 < sqrt u.
Proof. intros u Hu. apply sqrt_lt_R0. exact Hu. Qed.

Lemma ln_pos_s : forall u, 1 < u -> 0 < ln u.
Proof. intros u Hu. rewrite <- ln_1. apply ln_increasing; lra. Qed.

Lemma ln_pos_w : forall u, 1 <= u -> 0 <= ln u.
Proof. intros u Hu. rewrite <- ln_1. apply ln_le; lra. Qed.

Lemma ln_neg_s : forall u, 0 < u < 1 -> ln u < 0.
Proof. intros u Hu. rewrite <- ln_1. apply ln_increasing; lra. Qed.

Lemma ln_neg_w : forall u, 0 < u <= 1 -> ln u <= 0.
Proof. intros u Hu. rewrite <- ln_1. apply ln_le; lra. Qed.

(** Side conditions of the rules: linear and product ranges (nra), and 1/u on a signed range. *)
Ltac mono_rng := intros; cbv beta iota delta [dsg] in *;
  repeat match goal with H : _ /\ _ |- _ => destruct H end; repeat split; first [exact I | nra].

Ltac mono_inv := let u := fresh "u" in intros u ?; cbv beta in *;
  repeat match goal with H : _ /\ _ |- _ => destruct H end;
  first [assert (0 < / u) by (apply Rinv_0_lt_compat; lra) | assert (/ u < 0) by (apply Rinv_lt_0_compat; lra)];
  assert (u * / u = 1) by (apply Rinv_r; lra); set (w := / u) in *; repeat split; first [exact I | nra].

Definition dec_ok (s : dir) : Prop := match s with Dec | Cst => True | _ => False end.

(** The root of the derivation: f non-increasing in ε and in δ. *)
Theorem mono_nonincr2 : forall f rg se sd, mnode f rg se sd -> dec_ok se -> dec_ok sd -> nonincr2 f.
Proof.
  intros f rg se sd [R [E D]] He Hd x1 x2 d1 d2 Hx Hd1 Hd2.
  assert (A : f x2 d2 <= f x1 d2).
  { specialize (E d2 ltac:(lra)). destruct se; simpl in He, E; try contradiction.
    - apply E; lra.
    - right. apply E; lra. }
  assert (B : f x1 d2 <= f x1 d1).
  { specialize (D x1 ltac:(lra)). destruct sd; simpl in Hd, D; try contradiction.
    - apply D; lra.
    - right. apply D; lra. }
  lra.
Qed.
